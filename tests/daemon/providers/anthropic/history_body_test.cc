// Anthropic Messages bodies built from the kept history: the messages
// before the last assistant turn are kept, the user-side run after it is
// serialized at every request, and every body is byte for byte the fresh
// one.
#include <string>
#include <vector>

#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/merged_history.h"

namespace raw::providers::anthropic {
namespace {

config::ModelConfig HistoryModel() {
  config::ModelConfig model;
  model.name = "claude";
  model.provider = "anthropic";
  model.method = config::kMethodAnthropicMessages;
  model.model_id = "claude-test";
  return model;
}

ModelRequest Request(const std::vector<events::ContextItem>& items, SerializedHistory* history,
                     uint64_t generation) {
  return providers::testing::HistoryRequest(items, history, generation);
}

size_t AfterLastAssistantTurn(const std::vector<events::ContextItem>& items) {
  size_t closed = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (std::holds_alternative<events::AssistantTurn>(items[i])) closed = i + 1;
  }
  return closed;
}

TEST(AnthropicHistoryBodyTest, BodiesBuiltFromTheKeptHistoryEqualFreshOnes) {
  const std::vector<events::ContextItem> all =
      providers::testing::MergedHistory(kOpaqueProvider, kThinkingSignatureKind, "");
  SerializedHistory history;
  const uint64_t generation = NewHistoryGeneration();
  for (size_t n = 0; n <= all.size(); ++n) {
    const std::vector<events::ContextItem> items(all.begin(),
                                                 all.begin() + static_cast<ptrdiff_t>(n));
    const std::string fresh =
        BuildRequestBody(Request(items, nullptr, 0), HistoryModel(), CacheRetention::k5m);
    EXPECT_EQ(
        BuildRequestBody(Request(items, &history, generation), HistoryModel(), CacheRetention::k5m),
        fresh)
        << n;
    EXPECT_EQ(history.items(), AfterLastAssistantTurn(items)) << n;
    // The messages are those of the whole history merged at once.
    absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(fresh);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << fresh;
    EXPECT_EQ(DumpJson((*parsed)["messages"]), DumpJson(BuildMessages(items))) << n;
  }
}

TEST(AnthropicHistoryBodyTest, ARewrittenContextStartsAfresh) {
  const std::vector<events::ContextItem> all =
      providers::testing::MergedHistory(kOpaqueProvider, kThinkingSignatureKind, "");
  SerializedHistory history;
  (void)BuildRequestBody(Request(all, &history, NewHistoryGeneration()), HistoryModel(),
                         CacheRetention::k5m);
  std::vector<events::ContextItem> rewritten(all.size(), events::AssistantTurn{"x", "", {}, {}});
  EXPECT_EQ(BuildRequestBody(Request(rewritten, &history, NewHistoryGeneration()), HistoryModel(),
                             CacheRetention::k5m),
            BuildRequestBody(Request(rewritten, nullptr, 0), HistoryModel(), CacheRetention::k5m));
}

}  // namespace
}  // namespace raw::providers::anthropic
