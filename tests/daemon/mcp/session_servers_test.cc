// McpManager with a session's own servers (McpServerConfig::session_id):
// each session gets its own connection even for an identical definition,
// their values are used without variable expansion, DropSessionServers
// stops them, and a glob over server names is no mistake when it matches
// nothing.
#include <map>
#include <string>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::CountLines;
using testing::FakeServer;
using testing::FindSpec;
using testing::ManagerHarness;
using testing::TempDir;
using testing::TestContext;

config::McpServerConfig OfSession(config::McpServerConfig server, const std::string& session) {
  server.session_id = session;
  return server;
}

TEST(SessionServersTest, EachSessionHasItsOwnConnectionAndStatus) {
  TempDir dir;
  ManagerHarness harness;
  const auto configured = FakeServer("fake", {"--start-log", dir.Join("starts")});
  const auto s1 = OfSession(configured, "s1");
  const auto s2 = OfSession(configured, "s2");
  EXPECT_EQ(harness.Call(configured, "echo", {{"text", "c"}}).content, "echo: c");
  EXPECT_EQ(harness.Call(s1, "echo", {{"text", "1"}}).content, "echo: 1");
  EXPECT_EQ(harness.Call(s2, "echo", {{"text", "2"}}).content, "echo: 2");
  EXPECT_EQ(harness.Call(s1, "echo", {{"text", "1 again"}}).content, "echo: 1 again");
  // Same definition, three owners: three processes, and each reused.
  EXPECT_EQ(CountLines(dir.Join("starts")), 3);

  std::vector<McpServerStatus> status = harness.manager().StatusOf({{"fake", s1}});
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].session_id, "s1");
  EXPECT_EQ(status[0].state, ServerState::kReady);
  EXPECT_EQ(harness.manager().StatusOf({{"fake", configured}})[0].session_id, "");
  // The configured server is the one its name finds.
  EXPECT_EQ(harness.manager().FindServer("fake")->config().session_id, "");
}

TEST(SessionServersTest, ValuesAreUsedAsGivenWithoutVariables) {
  ManagerHarness harness;
  harness.vars["WORD"] = "hello";
  auto server = OfSession(FakeServer("fake"), "s1");
  server.env = {{"GREETING", "${WORD} there"}};
  EXPECT_EQ(harness.Call(server, "env", {{"name", "GREETING"}}).content, "${WORD} there");
}

TEST(SessionServersTest, DroppingStopsOnlyThatSessionsServersNotKeptOnes) {
  TempDir dir;
  ManagerHarness harness;
  const auto base = FakeServer("fake", {"--start-log", dir.Join("starts")});
  const auto s1 = OfSession(base, "s1");
  const auto s2 = OfSession(base, "s2");
  EXPECT_EQ(harness.Call(s2, "echo", {{"text", "2"}}).content, "echo: 2");
  EXPECT_EQ(harness.Call(base, "echo", {{"text", "c"}}).content, "echo: c");

  McpSelection selection = harness.Select({"mcp/fake/*"}, {s1});
  const tools::ToolSpec* wait = FindSpec(selection.tools, "mcp/fake/wait_cancel");
  ASSERT_NE(wait, nullptr);
  // A call in flight on s1's server ends because the server is stopped
  // (nothing cancels it): dropped once the server reports it waits.
  TestContext context;
  tools::ToolOutput ended =
      wait->handler(Json::object(), context.Get([&](const tools::ToolProgress&) {
        harness.manager().DropSessionServers("s1");
      }));
  EXPECT_NE(ended.status, events::ToolStatus::kOk) << ended.content;
  EXPECT_FALSE(context.cancel.cancelled());
  EXPECT_EQ(harness.manager().StatusOf({{"fake", s1}})[0].state, ServerState::kStopped);

  // Keeping an unchanged definition keeps its process; the others run on.
  harness.manager().DropSessionServers("s2", {{"fake", s2}});
  const int starts = CountLines(dir.Join("starts"));
  EXPECT_EQ(harness.Call(s2, "echo", {{"text", "2"}}).content, "echo: 2");
  EXPECT_EQ(harness.Call(base, "echo", {{"text", "c"}}).content, "echo: c");
  EXPECT_EQ(CountLines(dir.Join("starts")), starts);
  // s1 starts afresh when used again.
  EXPECT_EQ(harness.Call(s1, "echo", {{"text", "1"}}).content, "echo: 1");
  EXPECT_EQ(CountLines(dir.Join("starts")), starts + 1);
}

TEST(SessionServersTest, AGlobOverServersThatMatchesNothingIsNoMistake) {
  ManagerHarness harness;
  McpSelection selection = harness.Select({"mcp/*", "mcp/*/read_*", "mcp/gh/*"}, {});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(selection.notices,
              ::testing::ElementsAre("tools.use: \"mcp/gh/*\" matches no MCP tool"));
  auto server = OfSession(FakeServer("editor"), "s1");
  selection = harness.Select({"mcp/*/echo"}, {server});
  EXPECT_TRUE(selection.notices.empty()) << absl::StrJoin(selection.notices, "\n");
  ASSERT_EQ(selection.tools.size(), 1u);
  EXPECT_EQ(selection.tools[0].qualified_name, "mcp/editor/echo");
}

}  // namespace
}  // namespace raw::mcp
