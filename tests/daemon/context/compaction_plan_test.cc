#include "daemon/context/compaction_plan.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/context/token_estimate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::context {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

events::UserText Prompt(const std::string& text, const std::string& turn_id) {
  return events::UserText(text, events::UserTextKind::kPrompt, turn_id);
}

// One complete turn: the prompt, a tool call with its result, an answer.
std::vector<events::ContextItem> Turn(int n, size_t output_bytes = 40) {
  events::AssistantTurn call;
  call.tool_calls.push_back({absl::StrCat("c", n), "read_file", R"({"path":"f.txt"})"});
  events::AssistantTurn answer;
  answer.text = absl::StrCat("answer ", n);
  return {Prompt(absl::StrCat("prompt ", n), absl::StrCat("turn", n)), call,
          events::ToolOutcome{absl::StrCat("c", n), "read_file",
                              absl::StrCat("output ", n, " ", std::string(output_bytes, 'o')),
                              false},
          answer};
}

std::vector<events::ContextItem> Turns(int from, int to, size_t output_bytes = 40) {
  std::vector<events::ContextItem> items;
  for (int n = from; n <= to; ++n) {
    auto t = Turn(n, output_bytes);
    items.insert(items.end(), t.begin(), t.end());
  }
  return items;
}

std::vector<events::ContextItem> Flatten(const std::vector<std::vector<events::ContextItem>>& v) {
  std::vector<events::ContextItem> out;
  for (const auto& chunk : v) out.insert(out.end(), chunk.begin(), chunk.end());
  return out;
}

config::CompactSettings Keep(int turns) {
  config::CompactSettings s;
  s.keep_recent_turns = turns;
  return s;
}

TEST(CompactionPlanTest, KeepsTheTaskAndTheRecentTurnsAndSummarizesTheRest) {
  auto items = Turns(1, 4);
  CompactionPlan plan = PlanCompaction(items, Keep(2), std::nullopt, false);
  ASSERT_TRUE(plan.task.has_value());
  EXPECT_EQ(plan.task->text, "prompt 1");
  ASSERT_EQ(plan.chunks.size(), 1u);
  // The rest of turn 1 (after the task) and all of turn 2, in order.
  std::vector<events::ContextItem> expected(items.begin() + 1, items.begin() + 8);
  EXPECT_EQ(plan.chunks[0], expected);
  EXPECT_EQ(plan.kept, std::vector<events::ContextItem>(items.begin() + 8, items.end()));
  EXPECT_EQ(plan.first_summarized_turn_id, "turn1");
  EXPECT_EQ(plan.first_kept_turn_id, "turn3");
  EXPECT_EQ(plan.replaced_tokens, EstimateItemsTokens(expected));

  auto compacted = AssembleCompacted(plan, "S");
  ASSERT_EQ(compacted.size(), 2u + plan.kept.size());
  EXPECT_EQ(compacted[0], events::ContextItem(items[0]));
  EXPECT_EQ(compacted[1], events::ContextItem(events::UserText("S", events::UserTextKind::kSummary)));
  EXPECT_EQ(compacted[2], items[8]);
}

TEST(CompactionPlanTest, ARunningTurnIsAlwaysKeptAndNotCounted) {
  auto items = Turns(1, 4);
  CompactionPlan plan = PlanCompaction(items, Keep(2), std::nullopt, true);
  // Turns 2 and 3 are the two complete turns kept, 4 is running.
  EXPECT_EQ(plan.first_kept_turn_id, "turn2");
  EXPECT_EQ(plan.kept, std::vector<events::ContextItem>(items.begin() + 4, items.end()));
  EXPECT_EQ(plan.chunks[0], std::vector<events::ContextItem>(items.begin() + 1, items.begin() + 4));

  // With nothing kept, the running turn still stays.
  plan = PlanCompaction(items, Keep(0), std::nullopt, true);
  EXPECT_EQ(plan.first_kept_turn_id, "turn4");
  EXPECT_EQ(plan.kept.size(), 4u);
}

// A running turn of `steps` steps (a call and its result each) after its
// prompt.
std::vector<events::ContextItem> RunningTurn(int n, int steps) {
  std::vector<events::ContextItem> items = {
      Prompt(absl::StrCat("prompt ", n), absl::StrCat("turn", n))};
  for (int i = 1; i <= steps; ++i) {
    events::AssistantTurn call;
    call.tool_calls.push_back({absl::StrCat("r", i), "read_file", R"({"path":"f.txt"})"});
    items.push_back(call);
    items.push_back(events::ToolOutcome{absl::StrCat("r", i), "read_file",
                                        absl::StrCat("step ", i, std::string(400, 'o')), false});
  }
  return items;
}

TEST(CompactionPlanTest, ARunningTurnsEarlierStepsAreSummarizedWhenAsked) {
  auto items = Turns(1, 3);
  auto running = RunningTurn(4, 3);
  items.insert(items.end(), running.begin(), running.end());
  const size_t prompt = 12;  // turn 4's prompt
  CompactionPlan plan = PlanCompaction(items, Keep(2), std::nullopt, true, true);
  EXPECT_TRUE(plan.summarizes_running_steps);
  ASSERT_TRUE(plan.task.has_value());
  EXPECT_EQ(plan.task->text, "prompt 1");
  ASSERT_TRUE(plan.running_prompt.has_value());
  EXPECT_EQ(plan.running_prompt->text, "prompt 4");
  // Kept: the last step, its call and its result.
  EXPECT_EQ(plan.kept, std::vector<events::ContextItem>(items.end() - 2, items.end()));
  // Summarized: every complete turn but the task, then the running turn's
  // prompt (for context, not replaced) and its first two steps.
  std::vector<events::ContextItem> expected(items.begin() + 1, items.end() - 2);
  EXPECT_EQ(Flatten(plan.chunks), expected);
  std::vector<events::ContextItem> replaced(items.begin() + 1, items.begin() + prompt);
  replaced.insert(replaced.end(), items.begin() + prompt + 1, items.end() - 2);
  EXPECT_EQ(plan.replaced_tokens, EstimateItemsTokens(replaced));
  EXPECT_EQ(plan.first_summarized_turn_id, "turn1");

  auto compacted = AssembleCompacted(plan, "S");
  ASSERT_EQ(compacted.size(), 5u);
  EXPECT_EQ(compacted[0], items[0]);
  EXPECT_EQ(compacted[1], items[prompt]);
  EXPECT_EQ(compacted[2],
            events::ContextItem(events::UserText("S", events::UserTextKind::kSummary)));
  EXPECT_EQ(compacted[3], items[items.size() - 2]);

  // Without being asked, or without a complete turn running, nothing of the
  // running turn is summarized.
  plan = PlanCompaction(items, Keep(2), std::nullopt, true);
  EXPECT_FALSE(plan.summarizes_running_steps);
  EXPECT_EQ(plan.kept, std::vector<events::ContextItem>(items.begin() + 4, items.end()));
  plan = PlanCompaction(items, Keep(2), std::nullopt, false, true);
  EXPECT_FALSE(plan.summarizes_running_steps);
}

// The common case of `raw run`: one long turn, whose prompt is the task.
TEST(CompactionPlanTest, ASingleLongTurnKeepsItsTaskAndItsLastStep) {
  auto items = RunningTurn(1, 4);
  CompactionPlan plan = PlanCompaction(items, Keep(2), std::nullopt, true);
  EXPECT_TRUE(plan.chunks.empty());  // nothing to compact without the running steps
  plan = PlanCompaction(items, Keep(2), std::nullopt, true, true);
  EXPECT_TRUE(plan.summarizes_running_steps);
  EXPECT_FALSE(plan.running_prompt.has_value());
  ASSERT_TRUE(plan.task.has_value());
  EXPECT_EQ(plan.task->text, "prompt 1");
  EXPECT_EQ(Flatten(plan.chunks),
            std::vector<events::ContextItem>(items.begin() + 1, items.end() - 2));
  auto compacted = AssembleCompacted(plan, "S");
  ASSERT_EQ(compacted.size(), 4u);
  EXPECT_EQ(compacted[0], items[0]);
  EXPECT_EQ(compacted[2], items[items.size() - 2]);

  // One step only: there is nothing before it to summarize.
  items = RunningTurn(1, 1);
  plan = PlanCompaction(items, Keep(2), std::nullopt, true, true);
  EXPECT_FALSE(plan.summarizes_running_steps);
  EXPECT_TRUE(plan.chunks.empty());
}

TEST(CompactionPlanTest, KeepingNoTurnSummarizesAllButTheTask) {
  auto items = Turns(1, 3);
  CompactionPlan plan = PlanCompaction(items, Keep(0), std::nullopt, false);
  EXPECT_TRUE(plan.kept.empty());
  EXPECT_EQ(plan.first_kept_turn_id, "");
  EXPECT_EQ(Flatten(plan.chunks), std::vector<events::ContextItem>(items.begin() + 1, items.end()));
  EXPECT_EQ(AssembleCompacted(plan, "S").size(), 2u);
}

TEST(CompactionPlanTest, NothingToCompact) {
  // Fewer complete turns than are kept.
  EXPECT_TRUE(PlanCompaction(Turns(1, 2), Keep(2), std::nullopt, false).chunks.empty());
  EXPECT_TRUE(PlanCompaction(Turns(1, 3), Keep(2), std::nullopt, true).chunks.empty());
  EXPECT_TRUE(PlanCompaction({}, Keep(0), std::nullopt, false).chunks.empty());
  // Only the task itself is older than the kept turns.
  std::vector<events::ContextItem> items = {Prompt("task", "turn1")};
  auto rest = Turns(2, 3);
  items.insert(items.end(), rest.begin(), rest.end());
  EXPECT_TRUE(PlanCompaction(items, Keep(2), std::nullopt, false).chunks.empty());
  // Only an earlier summary is older than the kept turns: summarizing a
  // summary alone gains nothing.
  items.insert(items.begin() + 1, events::UserText("S1", events::UserTextKind::kSummary));
  EXPECT_TRUE(PlanCompaction(items, Keep(2), std::nullopt, false).chunks.empty());
}

TEST(CompactionPlanTest, AnEarlierSummaryIsFoldedAndTheTaskStaysOnce) {
  auto first = PlanCompaction(Turns(1, 4), Keep(2), std::nullopt, false);
  auto once = AssembleCompacted(first, "S1");
  auto more = Turns(5, 5);
  once.insert(once.end(), more.begin(), more.end());
  // [task, S1, turn 3, turn 4, turn 5]
  auto second = PlanCompaction(once, Keep(2), std::nullopt, false);
  ASSERT_EQ(second.chunks.size(), 1u);
  EXPECT_EQ(second.chunks[0][0],
            events::ContextItem(events::UserText("S1", events::UserTextKind::kSummary)));
  EXPECT_EQ(second.chunks[0][1], events::ContextItem(Prompt("prompt 3", "turn3")));
  EXPECT_EQ(second.first_summarized_turn_id, "turn3");
  EXPECT_EQ(second.first_kept_turn_id, "turn4");
  auto twice = AssembleCompacted(second, "S2");
  int tasks = 0, summaries = 0;
  for (const auto& item : twice) {
    if (const auto* text = std::get_if<events::UserText>(&item)) {
      tasks += text->text == "prompt 1" ? 1 : 0;
      summaries += text->kind == events::UserTextKind::kSummary ? 1 : 0;
    }
  }
  EXPECT_EQ(tasks, 1);
  EXPECT_EQ(summaries, 1);
  EXPECT_EQ(twice[0], events::ContextItem(Prompt("prompt 1", "turn1")));
}

TEST(CompactionPlanTest, ItemsBeforeTheFirstPromptAreTheOldest) {
  std::vector<events::ContextItem> items = {events::AssistantTurn{"stray", "", {}, {}}};
  auto rest = Turns(1, 3);
  items.insert(items.end(), rest.begin(), rest.end());
  auto plan = PlanCompaction(items, Keep(2), std::nullopt, false);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0][0], items[0]);
  EXPECT_EQ(plan.task->text, "prompt 1");
  EXPECT_EQ(plan.first_summarized_turn_id, "");  // unknown: before any turn
}

TEST(CompactionPlanTest, WithoutAWindowEverythingIsOneChunk) {
  auto plan = PlanCompaction(Turns(1, 30, 20000), Keep(2), std::nullopt, false);
  EXPECT_EQ(plan.chunks.size(), 1u);
}

TEST(CompactionPlanTest, WithAWindowEveryChunkRequestFitsAndOrderIsKept) {
  auto items = Turns(1, 30, 2000);
  config::CompactSettings settings = Keep(2);
  settings.max_output_tokens = 300;
  const int64_t window = 4000;
  auto plan = PlanCompaction(items, settings, window, false);
  ASSERT_GT(plan.chunks.size(), 3u);
  const int n = static_cast<int>(plan.chunks.size());
  for (int i = 0; i < n; ++i) {
    ASSERT_FALSE(plan.chunks[i].empty());
    auto request = SummaryRequest(RenderTranscript(plan.chunks[i]), i + 1, n);
    const int64_t size = EstimateRuntimeTokens(request.system_prompt, request.tools) +
                         EstimateItemsTokens(request.messages);
    EXPECT_LE(size + settings.max_output_tokens + ChunkSafetyMarginTokens(window), window) << i;
  }
  // Chronological and complete: the chunks together are everything older.
  EXPECT_EQ(Flatten(plan.chunks), std::vector<events::ContextItem>(items.begin() + 1,
                                                                   items.end() - 8));
}

TEST(CompactionPlanTest, AnItemTooLargeForAChunkIsShortenedToFit) {
  auto items = Turns(1, 3);
  std::get<events::ToolOutcome>(items[2]).content =
      "HEAD" + std::string(200000, 'x') + "TAIL";
  config::CompactSettings settings = Keep(1);
  settings.max_output_tokens = 200;
  const int64_t window = 3000;
  auto plan = PlanCompaction(items, settings, window, false);
  ASSERT_GE(plan.chunks.size(), 1u);
  bool found = false;
  for (size_t i = 0; i < plan.chunks.size(); ++i) {
    std::string rendered = RenderTranscript(plan.chunks[i]);
    auto request = SummaryRequest(rendered, 1, 1);
    EXPECT_LE(EstimateRuntimeTokens(request.system_prompt, {}) +
                  EstimateItemsTokens(request.messages) + settings.max_output_tokens +
                  ChunkSafetyMarginTokens(window),
              window);
    if (rendered.find("HEAD") != std::string::npos) {
      found = true;
      EXPECT_THAT(rendered, HasSubstr("TAIL"));
      EXPECT_THAT(rendered, HasSubstr("bytes left out"));
    }
  }
  EXPECT_TRUE(found);
  // What the summary replaces is the original size.
  EXPECT_GT(plan.replaced_tokens, 50000);
}

TEST(CompactionPlanTest, ChunksCarryNoPayloadsOrReasoning) {
  auto items = Turns(1, 3);
  std::get<events::AssistantTurn>(items[1]).reasoning = "private reasoning";
  std::get<events::ToolOutcome>(items[2]).content =
      "data:image/png;base64," + std::string(40000, 'Q');
  auto plan = PlanCompaction(items, Keep(2), std::nullopt, false);
  ASSERT_EQ(plan.chunks.size(), 1u);
  std::string rendered = RenderTranscript(plan.chunks[0]);
  EXPECT_THAT(rendered, Not(HasSubstr("QQQQ")));
  EXPECT_THAT(rendered, HasSubstr("[image image/png, 29.3 KB, path f.txt; data left out]"));
  EXPECT_EQ(std::get<events::AssistantTurn>(plan.chunks[0][0]).reasoning, "");
}

}  // namespace
}  // namespace raw::context
