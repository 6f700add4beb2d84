#include "daemon/events/session_event.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace raw::events {
namespace {

template <size_t I = 0>
void CollectKindNames(std::set<std::string>& names) {
  if constexpr (I < std::variant_size_v<EventPayload>) {
    names.insert(KindName(EventPayload(std::in_place_index<I>)));
    CollectKindNames<I + 1>(names);
  }
}

TEST(SessionEventTest, KindNamesAreDistinctAndStable) {
  std::set<std::string> names;
  CollectKindNames(names);
  EXPECT_EQ(names.size(), std::variant_size_v<EventPayload>);
  EXPECT_STREQ(KindName(TurnStarted{}), "turn_started");
  EXPECT_STREQ(KindName(AssistantMessage{}), "assistant_message");
  EXPECT_STREQ(KindName(ToolCallBatch{}), "tool_call_batch");
  EXPECT_STREQ(KindName(UsageReport{}), "usage_report");
  EXPECT_STREQ(KindName(TurnEnded{}), "turn_ended");
}

TEST(SessionEventTest, DeltasResetsAndResyncsAreNotDurable) {
  EXPECT_FALSE(IsDurable(TextDelta{"x"}));
  EXPECT_FALSE(IsDurable(ReasoningDelta{"x"}));
  EXPECT_FALSE(IsDurable(StreamReset{}));
  EXPECT_FALSE(IsDurable(Resync{}));

  EXPECT_TRUE(IsDurable(TurnStarted{}));
  EXPECT_TRUE(IsDurable(UserMessage{}));
  EXPECT_TRUE(IsDurable(AssistantMessage{}));
  EXPECT_TRUE(IsDurable(ToolCallBatch{}));
  EXPECT_TRUE(IsDurable(ToolStarted{}));
  EXPECT_TRUE(IsDurable(ToolResult{}));
  EXPECT_TRUE(IsDurable(UsageReport{}));
  EXPECT_TRUE(IsDurable(Notice{}));
  EXPECT_TRUE(IsDurable(TurnEnded{}));
}

}  // namespace
}  // namespace raw::events
