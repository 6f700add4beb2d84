#include "daemon/loop/unanswered_calls.h"

#include <string>
#include <vector>

#include "daemon/loop/session_context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

events::ContextItem Prompt(const std::string& text) {
  return events::UserText{text, events::UserTextKind::kPrompt, "turn"};
}

events::ContextItem Calls(const std::vector<std::string>& ids) {
  events::AssistantTurn turn;
  for (const std::string& id : ids) turn.tool_calls.push_back({id, "echo", "{}"});
  return turn;
}

events::ContextItem Outcome(const std::string& id, const std::string& content = "ok") {
  return events::ToolOutcome{id, "echo", content, content != "ok"};
}

TEST(AnswerEveryCallTest, AContextWhoseCallsAreAnsweredIsLeftAlone) {
  EXPECT_FALSE(AnswerEveryCall({}, "why"));
  events::AssistantTurn answer;
  answer.text = "hi";
  EXPECT_FALSE(AnswerEveryCall({Prompt("a"), answer}, "why"));
  EXPECT_FALSE(AnswerEveryCall(
      {Prompt("a"), Calls({"c1", "c2"}), Outcome("c2"), Outcome("c1"), Prompt("b")}, "why"));
}

// The last batch open: its missing outcomes follow the ones it has, in the
// order of its calls, and can be appended.
TEST(AnswerEveryCallTest, AnOpenLastBatchIsAnsweredAtTheEnd) {
  std::vector<events::ContextItem> items = {Prompt("a"), Calls({"c1", "c2", "c3"}), Outcome("c2")};
  std::optional<AnsweredContext> answered = AnswerEveryCall(items, "why");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->first_inserted, items.size());
  EXPECT_THAT(answered->items, ::testing::ElementsAre(items[0], items[1], items[2],
                                                      Outcome("c1", "why"), Outcome("c3", "why")));
}

// An open batch before later items (a session stored before such calls
// were answered) is answered where it stands.
TEST(AnswerEveryCallTest, AnOpenBatchInTheMiddleIsAnsweredInPlace) {
  std::vector<events::ContextItem> items = {Prompt("a"),   Calls({"c1"}), Prompt("b"),
                                            Calls({"c2"}), Outcome("c2"), Calls({"c3"})};
  std::optional<AnsweredContext> answered = AnswerEveryCall(items, "why");
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->first_inserted, 2u);
  EXPECT_THAT(answered->items,
              ::testing::ElementsAre(items[0], items[1], Outcome("c1", "why"), items[2], items[3],
                                     items[4], items[5], Outcome("c3", "why")));
}

// A check that starts where the previous one ended looks only at the items
// after it, and still gives back the whole context.
TEST(AnswerEveryCallTest, ACheckFromAnIndexLooksOnlyAtTheItemsAfterIt) {
  std::vector<events::ContextItem> items = {Prompt("a"),   Calls({"c1"}), Prompt("b"),
                                            Calls({"c2"}), Outcome("c2"), Calls({"c3"})};
  std::optional<AnsweredContext> answered = AnswerEveryCall(items, "why", 2);
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->first_inserted, items.size());
  EXPECT_THAT(answered->items, ::testing::ElementsAre(items[0], items[1], items[2], items[3],
                                                      items[4], items[5], Outcome("c3", "why")));
  EXPECT_FALSE(AnswerEveryCall(items, "why", 6));
}

TEST(SessionContextTest, TheCheckedPrefixLastsAsLongAsItsGeneration) {
  SessionContext ctx;
  ctx.Load({Prompt("a"), Calls({"c1"}), Outcome("c1")});
  EXPECT_EQ(ctx.CallsCheckedUpTo(), 0u);
  ctx.MarkCallsChecked();
  ctx.items.push_back(Prompt("b"));
  EXPECT_EQ(ctx.CallsCheckedUpTo(), 3u);
  // Whatever replaces the items is checked from its first item again.
  ctx.Rewrite({Prompt("summary"), Calls({"c9"})});
  EXPECT_EQ(ctx.CallsCheckedUpTo(), 0u);
  ctx.MarkCallsChecked();
  EXPECT_EQ(ctx.CallsCheckedUpTo(), 2u);
  ctx.Load({Prompt("reloaded")});
  EXPECT_EQ(ctx.CallsCheckedUpTo(), 0u);
}

}  // namespace
}  // namespace raw::loop
