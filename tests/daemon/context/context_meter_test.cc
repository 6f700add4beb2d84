#include "daemon/context/context_meter.h"

#include <string>
#include <vector>

#include "daemon/context/token_estimate.h"
#include "daemon/providers/provider_factory.h"
#include "gtest/gtest.h"

namespace raw::context {
namespace {

std::vector<events::ContextItem> SomeItems() {
  events::AssistantTurn turn;
  turn.text = std::string(80, 'a');
  turn.tool_calls.push_back({"c1", "read_file", R"({"path":"a.txt"})"});
  return {events::UserText(std::string(40, 'u')), turn,
          events::ToolOutcome{"c1", "read_file", std::string(400, 'o'), false}};
}

events::Usage Reported(std::optional<int64_t> input, std::optional<int64_t> output) {
  events::Usage u;
  u.input_tokens = input;
  u.output_tokens = output;
  return u;
}

TEST(ContextMeterTest, ResetEstimatesRuntimeAndEveryItem) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(100, items);
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemsTokens(items));
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.items(), 3u);
  meter.Reset(7, {});
  EXPECT_EQ(meter.tokens(), 7);
  EXPECT_EQ(meter.items(), 0u);
}

TEST(ContextMeterTest, AppendAndSetRuntimeUpdateTheWholeEstimate) {
  ContextMeter meter;
  meter.Reset(100, {});
  auto items = SomeItems();
  for (const auto& item : items) meter.Append(item);
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemsTokens(items));
  EXPECT_EQ(meter.items(), 3u);
  meter.SetRuntime(150);
  EXPECT_EQ(meter.tokens(), 150 + EstimateItemsTokens(items));
}

TEST(ContextMeterTest, ReportedInputAndOutputBecomeTheBaseline) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(100, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(5000, 60));
  EXPECT_TRUE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 5060);
  // Items appended since are estimated on top of the baseline.
  meter.Append(items[2]);
  EXPECT_EQ(meter.tokens(), 5060 + EstimateItemTokens(items[2]));
  // So is a runtime change since the baseline.
  meter.SetRuntime(90);
  EXPECT_EQ(meter.tokens(), 5060 + EstimateItemTokens(items[2]) - 10);
  // The next report replaces the baseline.
  meter.Append(events::AssistantTurn{"done", "", {}, {}});
  meter.RecordReported(Reported(6000, 3));
  EXPECT_EQ(meter.tokens(), 6003);
  EXPECT_EQ(meter.items(), 4u);
}

// Counts no request could have are unknown: the sum never wraps into a
// negative size that would keep compaction from ever starting.
TEST(ContextMeterTest, ImplausibleReportedCountsAreUnknown) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(0, {items[0]});
  meter.Append(items[1]);
  const int64_t before = meter.tokens();
  meter.RecordReported(Reported(INT64_MAX, 1));
  meter.RecordReported(Reported(-5, 1));
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), before);
  meter.RecordReported(Reported(5000, INT64_MAX));
  EXPECT_EQ(meter.tokens(), 5000 + EstimateItemTokens(items[1]));
}

TEST(ContextMeterTest, UnknownOutputUsesTheEstimateOfTheLastItem) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(0, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(5000, std::nullopt));
  EXPECT_EQ(meter.tokens(), 5000 + EstimateItemTokens(items[1]));
  EXPECT_TRUE(meter.reported_baseline());
}

// Reasoning the next request leaves behind is not part of what the model
// receives: not estimated, and taken out of the reported output it is part
// of. What the rule sends back stays in both.
TEST(ContextMeterTest, ReasoningCountsOnlyWhereTheRequestSendsItBack) {
  events::AssistantTurn thought;
  thought.text = "ok";
  thought.reasoning = std::string(40000, 'r');  // 10,000 tokens
  config::ModelConfig chat;
  chat.method = config::kMethodOpenAiChat;

  ContextMeter meter;
  meter.SetReasoningRule(providers::ReasoningRuleFor(chat), {});
  meter.Reset(100, {events::UserText("q")});
  meter.Append(thought);
  EXPECT_EQ(meter.tokens(),
            100 + EstimateItemTokens(events::UserText("q")) + kMessageOverheadTokens + 1);
  events::Usage usage = Reported(50, 10010);
  usage.reasoning_tokens = 10000;
  meter.RecordReported(usage);
  EXPECT_EQ(meter.tokens(), 60) << "the output less the reasoning left behind";
  // Reasoning not reported: the estimate of what the answer sends.
  meter.Append(thought);
  meter.RecordReported(Reported(70, 10010));
  EXPECT_EQ(meter.tokens(), 70 + kMessageOverheadTokens + 1);
  // Hidden reasoning (no text), reported: taken out too.
  events::AssistantTurn hidden;
  hidden.text = std::string(40, 'a');
  meter.Append(hidden);
  usage = Reported(80, 500);
  usage.reasoning_tokens = 490;
  meter.RecordReported(usage);
  EXPECT_EQ(meter.tokens(), 90);

  // A model whose requests send the reasoning back counts it, and the
  // switch re-estimates the whole context at once.
  std::vector<events::ContextItem> items = {events::UserText("q"), thought};
  config::ModelConfig sends = chat;
  sends.send_reasoning_content = true;
  thought.tool_calls.push_back({"c1", "read_file", "{}"});
  items[1] = thought;
  meter.Reset(100, items);
  const int64_t left_behind = meter.tokens();
  meter.SetReasoningRule(providers::ReasoningRuleFor(sends), items);
  EXPECT_EQ(meter.tokens(), left_behind + 10000);
  EXPECT_FALSE(meter.reported_baseline());
  meter.Append(thought);
  usage = Reported(20000, 10010);
  usage.reasoning_tokens = 10000;
  meter.RecordReported(usage);
  EXPECT_EQ(meter.tokens(), 30010) << "reasoning sent back stays in the baseline";
}

// Another model counts with another tokenizer: after a switch, also one to
// a model of the same API and reasoning rule, the previous model's count is
// no baseline and the whole context is estimated.
TEST(ContextMeterTest, AnotherModelDropsTheReportedBaseline) {
  config::ModelConfig first;
  first.method = config::kMethodOpenAiChat;
  first.model_id = "first-model";
  config::ModelConfig second = first;
  second.model_id = "second-model";
  auto items = SomeItems();

  ContextMeter meter;
  meter.SetReasoningRule(providers::ReasoningRuleFor(first), {});
  meter.Reset(100, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(5000, 40));
  ASSERT_TRUE(meter.reported_baseline());
  std::vector<events::ContextItem> context = {items[0], items[1]};
  // The same model again changes nothing.
  meter.SetReasoningRule(providers::ReasoningRuleFor(first), context);
  EXPECT_TRUE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 5040);

  meter.SetReasoningRule(providers::ReasoningRuleFor(second), context);
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemTokens(items[0]) + EstimateItemTokens(items[1]));
}

// A model that counts twice what Raw estimates: what is estimated from then
// on (the change since the baseline, the whole context after a compaction
// or a restart) is doubled, so the meter and the trigger see the model's
// count; another model starts again from 1.
TEST(ContextMeterTest, AReportedCountCalibratesWhatIsEstimated) {
  config::ModelConfig first;
  first.method = config::kMethodOpenAiChat;
  first.model_id = "dense-model";
  config::ModelConfig second = first;
  second.model_id = "other-model";
  auto items = SomeItems();
  const int64_t runtime = 2000;
  const int64_t input_estimate = runtime + EstimateItemTokens(items[0]);

  ContextMeter meter;
  meter.SetReasoningRule(providers::ReasoningRuleFor(first), {});
  meter.Reset(runtime, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(2 * input_estimate, 40));
  EXPECT_EQ(meter.scale_permille(), 2000);
  EXPECT_EQ(meter.tokens(), 2 * input_estimate + 40);
  meter.Append(items[2]);
  EXPECT_EQ(meter.tokens(), 2 * input_estimate + 40 + 2 * EstimateItemTokens(items[2]));

  // A compaction's Reset keeps the ratio; so do Serialize and Restore.
  meter.Reset(runtime, items);
  const int64_t whole = runtime + EstimateItemsTokens(items);
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 2 * whole);
  ContextMeter restored;
  restored.SetReasoningRule(providers::ReasoningRuleFor(first), {});
  restored.Restore(meter.Serialize(), runtime, items);
  EXPECT_EQ(restored.tokens(), 2 * whole);

  // Another model: its own count, not this one's ratio.
  meter.SetReasoningRule(providers::ReasoningRuleFor(second), items);
  EXPECT_EQ(meter.scale_permille(), 1000);
  EXPECT_EQ(meter.tokens(), whole);
}

// The ratio only ever raises the estimate (a model that counts less is
// left estimated high, the safe side), is bounded, and small contexts,
// where fixed overheads dominate, give none.
TEST(ContextMeterTest, TheCalibrationRatioIsAtLeastOneBoundedAndNeedsAContext) {
  auto items = SomeItems();
  const int64_t input_estimate = 2000 + EstimateItemTokens(items[0]);
  ContextMeter meter;
  meter.Reset(2000, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(input_estimate / 2, 40));
  EXPECT_EQ(meter.scale_permille(), 1000);
  meter.Append(items[2]);
  meter.RecordReported(Reported(100 * input_estimate, 40));
  EXPECT_EQ(meter.scale_permille(), ContextMeter::kMaxScalePermille);

  ContextMeter small;
  small.Reset(100, {items[0]});
  small.Append(items[1]);
  small.RecordReported(Reported(5000, 40));
  EXPECT_EQ(small.scale_permille(), 1000);
}

TEST(ContextMeterTest, UnknownInputEstimatesTheWholeContext) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(100, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(std::nullopt, 40));
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemTokens(items[0]) + EstimateItemTokens(items[1]));

  // A later response without an input count ends the earlier baseline.
  meter.RecordReported(Reported(5000, 60));
  ASSERT_TRUE(meter.reported_baseline());
  meter.Append(items[2]);
  const events::ContextItem answer = events::AssistantTurn{"done", "", {}, {}};
  meter.Append(answer);
  meter.RecordReported(Reported(std::nullopt, std::nullopt));
  EXPECT_FALSE(meter.reported_baseline());
  std::vector<events::ContextItem> all = items;
  all.push_back(answer);
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemsTokens(all));
}

// A response that reported no usage at all (RecordReported is not called
// for it) ends the baseline as well.
TEST(ContextMeterTest, AResponseWithoutUsageEndsTheBaseline) {
  ContextMeter meter;
  auto items = SomeItems();
  meter.Reset(100, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(5000, 60));
  meter.Append(items[2]);
  // A tool result is not a response: the baseline stays.
  EXPECT_TRUE(meter.reported_baseline());
  const events::ContextItem answer = events::AssistantTurn{"done", "", {}, {}};
  meter.Append(answer);
  EXPECT_FALSE(meter.reported_baseline());
  std::vector<events::ContextItem> all = items;
  all.push_back(answer);
  EXPECT_EQ(meter.tokens(), 100 + EstimateItemsTokens(all));
}

// A state saved with a baseline older than the last response (by a build
// that kept it) restores as the whole estimate.
TEST(ContextMeterTest, RestoreDropsABaselineOlderThanTheLastResponse) {
  auto items = SomeItems();
  items.push_back(events::AssistantTurn{"done", "", {}, {}});
  const std::string saved = R"({"v":1,"items":4,"baseline":5060,"baseline_runtime":100,)"
                            R"("baseline_items":2})";
  ContextMeter restored;
  restored.Restore(saved, 100, items);
  EXPECT_FALSE(restored.reported_baseline());
  EXPECT_EQ(restored.tokens(), 100 + EstimateItemsTokens(items));
}

TEST(ContextMeterTest, ResetDropsTheBaseline) {
  ContextMeter meter;
  meter.Reset(0, {});
  meter.Append(events::UserText("hi"));
  meter.RecordReported(Reported(9000, 10));
  auto items = SomeItems();
  meter.Reset(20, items);
  EXPECT_FALSE(meter.reported_baseline());
  EXPECT_EQ(meter.tokens(), 20 + EstimateItemsTokens(items));
}

TEST(ContextMeterTest, SerializeAndRestoreKeepTheBaselineAcrossRestarts) {
  auto items = SomeItems();
  ContextMeter meter;
  meter.Reset(100, {items[0]});
  meter.Append(items[1]);
  meter.RecordReported(Reported(5000, 60));
  meter.Append(items[2]);
  const std::string saved = meter.Serialize();

  ContextMeter restored;
  restored.Restore(saved, 100, items);
  EXPECT_TRUE(restored.reported_baseline());
  EXPECT_EQ(restored.tokens(), meter.tokens());
  EXPECT_EQ(restored.items(), 3u);
  // The runtime now may differ from the runtime at the baseline.
  restored.Restore(saved, 130, items);
  EXPECT_EQ(restored.tokens(), meter.tokens() + 30);
  // And the restored meter keeps working.
  restored.Append(events::UserText("next"));
  EXPECT_EQ(restored.tokens(), meter.tokens() + 30 + EstimateItemTokens(events::UserText("next")));
}

// The runtime a state was saved under, for a daemon that cannot weigh every
// tool yet; nothing for a state without one.
TEST(ContextMeterTest, TheSavedStateKeepsTheRuntimeItWasTakenUnder) {
  auto items = SomeItems();
  ContextMeter meter;
  meter.Reset(100, items);
  EXPECT_EQ(ContextMeter::SavedRuntime(meter.Serialize()), 100);
  meter.SetRuntime(4200);
  meter.RecordReported(Reported(5000, 60));
  EXPECT_EQ(ContextMeter::SavedRuntime(meter.Serialize()), 4200);
  for (const std::string& saved :
       {std::string(), std::string("not json"), std::string(R"({"v":1,"items":3})"),
        std::string(R"({"v":1,"items":3,"runtime":-1})"),
        std::string(R"({"v":2,"items":3,"runtime":100})"),
        std::string(R"({"v":1,"items":3,"runtime":"100"})")}) {
    EXPECT_EQ(ContextMeter::SavedRuntime(saved), std::nullopt) << saved;
  }
}

TEST(ContextMeterTest, RestoreOfAWholeEstimateEstimatesAgain) {
  auto items = SomeItems();
  ContextMeter meter;
  meter.Reset(100, items);
  ContextMeter restored;
  restored.Restore(meter.Serialize(), 120, items);
  EXPECT_FALSE(restored.reported_baseline());
  EXPECT_EQ(restored.tokens(), 120 + EstimateItemsTokens(items));
}

TEST(ContextMeterTest, RestoreFallsBackToResetOnEmptyMalformedOrMismatchedState) {
  auto items = SomeItems();
  ContextMeter meter;
  meter.Reset(0, {items[0], items[1]});
  meter.RecordReported(Reported(5000, 60));
  const std::string two_items = meter.Serialize();
  const int64_t whole = 100 + EstimateItemsTokens(items);
  for (const std::string& saved :
       {std::string(), std::string("not json"), std::string("[1,2]"), std::string("{}"),
        std::string(R"({"v":2,"items":3,"baseline":5000,"baseline_runtime":0,"baseline_items":3})"),
        std::string(R"({"v":1,"items":3,"baseline":-5,"baseline_runtime":0,"baseline_items":3})"),
        std::string(R"({"v":1,"items":3,"baseline":5000,"baseline_runtime":0,"baseline_items":4})"),
        std::string(R"({"v":1,"items":3,"baseline":"5000","baseline_runtime":0,"baseline_items":3})"),
        std::string(R"({"v":1,"items":3,"baseline":5000})"),
        two_items}) {
    ContextMeter restored;
    restored.Append(events::UserText("stale state"));
    restored.RecordReported(Reported(1, 1));
    restored.Restore(saved, 100, items);
    EXPECT_FALSE(restored.reported_baseline()) << saved;
    EXPECT_EQ(restored.tokens(), whole) << saved;
    EXPECT_EQ(restored.items(), 3u) << saved;
  }
}

TEST(ContextMeterTest, EstimateCarriesTheWindowOnlyWhenKnown) {
  ContextMeter meter;
  meter.Reset(100, {});
  events::ContextEstimate e = meter.Estimate(std::nullopt);
  EXPECT_EQ(e.tokens, 100);
  EXPECT_FALSE(e.window_tokens.has_value());
  EXPECT_FALSE(e.reported_baseline);
  meter.Append(events::UserText("hi"));
  meter.RecordReported(Reported(400, 20));
  e = meter.Estimate(1000);
  EXPECT_EQ(e.tokens, 420);
  EXPECT_EQ(e.window_tokens, 1000);
  EXPECT_TRUE(e.reported_baseline);
}

}  // namespace
}  // namespace raw::context
