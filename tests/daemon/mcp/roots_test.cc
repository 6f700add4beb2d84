// The `roots` capability: offered only for servers configured with roots,
// answered with the session's directory, and one connection per directory;
// checked against server-everything (which adds get-roots-list for clients
// that offer roots) and server-filesystem (whose allowed directories become
// the client's roots).
#include <chrono>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "daemon/mcp/mcp_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ManagerHarness;
using testing::QualifiedNames;
using testing::TempDir;

TEST(RootsTest, FileUrisArePercentEncoded) {
  EXPECT_EQ(FileUri("/home/me/src"), "file:///home/me/src");
  EXPECT_EQ(FileUri("/tmp/a b/\xC3\xBC#1"), "file:///tmp/a%20b/%C3%BC%231");
  Json list = RootsList("/work/project");
  ASSERT_EQ(list["roots"].size(), 1u);
  EXPECT_EQ(list["roots"][0]["uri"], "file:///work/project");
  EXPECT_EQ(list["roots"][0]["name"], "project");
}

// Calls `qualified_name` through `selection` (the connection it was made
// for).
tools::ToolOutput CallIn(const McpSelection& selection, const std::string& qualified_name) {
  const tools::ToolSpec* spec = testing::FindSpec(selection.tools, qualified_name);
  if (spec == nullptr) return tools::ToolOutput::Error("not selected: " + qualified_name);
  testing::TestContext context;
  return spec->handler(Json::object(), context.Get());
}

class RootsServersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::ReferenceServersInstalled(&why)) GTEST_SKIP() << why;
    std::filesystem::create_directories(one_.Join("project"));
    std::filesystem::create_directories(two_.Join("other"));
  }
  TempDir one_, two_;
};

TEST_F(RootsServersTest, AServerWithRootsSeesTheSessionDirectoryOthersNoCapability) {
  ManagerHarness harness;
  config::McpServerConfig with = testing::EverythingStdio("rooted");
  with.roots = true;
  config::McpServerConfig without = testing::EverythingStdio("plain");
  McpSelection selection = harness.Select({"mcp/*/*"}, {with, without}, one_.Join("project"));
  ASSERT_FALSE(selection.tools.empty()) << absl::StrJoin(selection.notices, "\n");
  std::vector<std::string> names = QualifiedNames(selection.tools);
  EXPECT_THAT(names, Contains("mcp/rooted/get-roots-list"));
  EXPECT_THAT(names, Not(Contains("mcp/plain/get-roots-list")));

  tools::ToolOutput roots = CallIn(selection, "mcp/rooted/get-roots-list");
  EXPECT_THAT(roots.content, HasSubstr(FileUri(one_.Join("project"))));
}

TEST_F(RootsServersTest, OneConnectionPerDirectorySharedWithinIt) {
  ManagerHarness harness;
  config::McpServerConfig server = testing::EverythingStdio("rooted");
  server.roots = true;
  ASSERT_FALSE(harness.Select({"mcp/rooted/echo"}, {server}, one_.Join("project")).tools.empty());
  ASSERT_FALSE(harness.Select({"mcp/rooted/echo"}, {server}, two_.Join("other")).tools.empty());
  ASSERT_FALSE(harness.Select({"mcp/rooted/echo"}, {server}, one_.Join("project")).tools.empty());
  std::map<std::string, config::McpServerConfig> configured = {{"rooted", server}};
  std::vector<McpServerStatus> status = harness.manager().StatusOf(configured);
  ASSERT_EQ(status.size(), 2u);
  std::vector<std::string> roots = {status[0].root_dir, status[1].root_dir};
  EXPECT_THAT(roots, Contains(one_.Join("project")));
  EXPECT_THAT(roots, Contains(two_.Join("other")));
  EXPECT_EQ(status[0].state, ServerState::kReady);
  EXPECT_EQ(status[1].state, ServerState::kReady);

  // Without roots the directory does not matter: one shared connection.
  config::McpServerConfig shared = testing::EverythingStdio("shared");
  ASSERT_FALSE(harness.Select({"mcp/shared/echo"}, {shared}, one_.Join("project")).tools.empty());
  ASSERT_FALSE(harness.Select({"mcp/shared/echo"}, {shared}, two_.Join("other")).tools.empty());
  std::vector<McpServerStatus> one = harness.manager().StatusOf({{"shared", shared}});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].root_dir, "");
}

TEST_F(RootsServersTest, TheFilesystemServerIsConfinedToTheSessionDirectory) {
  ManagerHarness harness;
  // Its command line allows `one_`; with roots the session directory
  // replaces that.
  config::McpServerConfig fs = testing::FilesystemStdio(one_.path());
  fs.roots = true;
  McpSelection selection = harness.Select({"mcp/fs/*"}, {fs}, two_.Join("other"));
  ASSERT_FALSE(selection.tools.empty()) << absl::StrJoin(selection.notices, "\n");
  // The server applies the roots asynchronously after it asked for them:
  // ask again until it has (each call is a round trip; bounded).
  tools::ToolOutput listed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  do {
    listed = CallIn(selection, "mcp/fs/list_allowed_directories");
  } while (!absl::StrContains(listed.content, two_.Join("other")) &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_THAT(listed.content, HasSubstr(two_.Join("other")));
  EXPECT_THAT(listed.content, Not(HasSubstr(one_.path())));
}

}  // namespace
}  // namespace raw::mcp
