#include "clients/dashboard/api_paths.h"

#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

TEST(ApiPathsTest, SessionPathsNameTheSessionAndThePart) {
  auto plain = ParseSessionPath("/api/sessions/s_1");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->id, "s_1");
  EXPECT_EQ(plain->rest, "");
  for (const char* part : {"history", "stats", "live"}) {
    auto parsed = ParseSessionPath(std::string("/api/sessions/s_1/") + part);
    ASSERT_TRUE(parsed) << part;
    EXPECT_EQ(parsed->id, "s_1");
    EXPECT_EQ(parsed->rest, part);
  }
}

TEST(ApiPathsTest, OtherSessionPathsAreNotRoutes) {
  for (const char* path : {"/api/sessions/", "/api/sessions//history", "/api/sessions/s/other",
                           "/api/sessions/s/history/x", "/api/sessions/s/", "/api/other/s"}) {
    EXPECT_FALSE(ParseSessionPath(path)) << path;
  }
}

TEST(ApiPathsTest, PluginPathsNameOneNamespace) {
  EXPECT_EQ(ParsePluginPath("/api/plugins/raven-research"), "raven-research");
  EXPECT_FALSE(ParsePluginPath("/api/plugins/"));
  EXPECT_FALSE(ParsePluginPath("/api/plugins/a/b"));
  EXPECT_FALSE(ParsePluginPath("/api/pluginsx"));
}

TEST(ApiPathsTest, IntegerQueryParameters) {
  std::map<std::string, std::string> query = {{"limit", "20"}, {"bad", "-1"}, {"word", "ten"}};
  EXPECT_EQ(*QueryInt(query, "limit", 5), 20);
  EXPECT_EQ(*QueryInt(query, "absent", 5), 5);
  EXPECT_EQ(QueryInt(query, "bad", 5).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(QueryInt(query, "word", 5).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace raw::dashboard
