// Gemini bodies built from the kept history: the contents before the last
// run of tool results are kept, that run is serialized at every request
// (ordered by the calls of the turn before it), and every body is byte for
// byte the fresh one.
#include <string>
#include <vector>

#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/google/thought_signature.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/merged_history.h"

namespace raw::providers::google {
namespace {

config::ModelConfig ContentsModel() {
  config::ModelConfig model;
  model.name = "gem";
  model.provider = "google";
  model.method = config::kMethodGoogleGenerateContent;
  model.model_id = "gemini-test";
  return model;
}

ModelRequest Request(const std::vector<events::ContextItem>& items, SerializedHistory* history,
                     uint64_t generation) {
  return testing::HistoryRequest(items, history, generation);
}

size_t AfterLastNonResult(const std::vector<events::ContextItem>& items) {
  size_t closed = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!std::holds_alternative<events::ToolOutcome>(items[i])) closed = i + 1;
  }
  return closed;
}

TEST(GoogleHistoryContentsTest, BodiesBuiltFromTheKeptHistoryEqualFreshOnes) {
  const std::vector<events::ContextItem> all =
      testing::MergedHistory(kOpaqueProvider, kThoughtSignatureKind, kCallAnchorPrefix);
  SerializedHistory history;
  const uint64_t generation = NewHistoryGeneration();
  for (size_t n = 0; n <= all.size(); ++n) {
    const std::vector<events::ContextItem> items(all.begin(),
                                                 all.begin() + static_cast<ptrdiff_t>(n));
    const std::string fresh = BuildRequestBody(Request(items, nullptr, 0), ContentsModel());
    EXPECT_EQ(BuildRequestBody(Request(items, &history, generation), ContentsModel()), fresh) << n;
    EXPECT_EQ(history.items(), AfterLastNonResult(items)) << n;
    absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(fresh);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << fresh;
    EXPECT_EQ(DumpJson((*parsed)["contents"]), DumpJson(HistoryToContents(items))) << n;
  }
  // The run of results answering call_B before call_A goes in call order.
  const std::string body = BuildRequestBody(Request(all, &history, generation), ContentsModel());
  EXPECT_LT(body.find(R"("id":"call_A")", body.find("functionResponse")),
            body.find(R"("id":"call_B")", body.find("functionResponse")));
}

TEST(GoogleHistoryContentsTest, ARewrittenContextStartsAfresh) {
  const std::vector<events::ContextItem> all =
      testing::MergedHistory(kOpaqueProvider, kThoughtSignatureKind, kCallAnchorPrefix);
  SerializedHistory history;
  (void)BuildRequestBody(Request(all, &history, NewHistoryGeneration()), ContentsModel());
  std::vector<events::ContextItem> rewritten(all.size(), events::UserText{"summary"});
  EXPECT_EQ(BuildRequestBody(Request(rewritten, &history, NewHistoryGeneration()), ContentsModel()),
            BuildRequestBody(Request(rewritten, nullptr, 0), ContentsModel()));
}

}  // namespace
}  // namespace raw::providers::google
