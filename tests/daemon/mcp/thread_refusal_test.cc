// MCP when the system gives no thread (RefuseThreadStartsForTesting): each
// start that needs one fails with a clear error naming what it was for,
// leaves no process or count behind, and the next use works.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_join.h"
#include "common/thread_start.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::CountLines;
using testing::FakeServer;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using testing::TempDir;

std::string AllNotices(const McpSelection& selection) {
  return absl::StrJoin(selection.notices, "\n");
}

// No child of this process is left, running or unreaped.
// No child process of this one is left, running or unreaped, apart from a
// sanitizer's symbolizer (which the ThreadSanitizer runtime starts as a
// child): the kernel's list, read from /proc, not waitpid(-1), which would
// reap what others wait for.
bool NoChildLeft() {
  const std::string parent = std::to_string(getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
    const size_t open = stat.find('(');
    const size_t close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    const std::string comm = stat.substr(open + 1, close - open - 1);
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    std::string ppid;
    rest >> state >> ppid;
    if (ppid == parent && comm.find("symbolizer") == std::string::npos) return false;
  }
  return true;
}

// Each thread a stdio server's connection needs, refused in turn.
TEST(ThreadRefusalTest, AServerWhoseThreadCannotStartFailsAndTheNextStartWorks) {
  for (const char* thread :
       {"the reader of MCP server \"fake\"", "the writer of MCP server \"fake\"",
        "the tool list refresher of MCP server \"fake\""}) {
    SCOPED_TRACE(thread);
    ManagerHarness harness;
    auto server = FakeServer("fake");
    {
      RefuseThreadStartsForTesting refuse(thread);
      McpSelection selection = harness.Select({"mcp/fake/*"}, {server});
      EXPECT_EQ(refuse.refused(), 1);
      EXPECT_TRUE(selection.tools.empty());
      EXPECT_THAT(AllNotices(selection),
                  HasSubstr(absl::StrCat("MCP server \"fake\" is unavailable: failed to start: "
                                         "could not start a thread for ",
                                         thread, ": ")));
      std::vector<McpServerStatus> status = harness.manager().Status();
      ASSERT_EQ(status.size(), 1u);
      EXPECT_EQ(status[0].state, ServerState::kFailed);
      EXPECT_THAT(status[0].last_error, HasSubstr("could not start a thread"));
      EXPECT_TRUE(NoChildLeft()) << "the server's process was stopped and reaped";
    }
    // The first failure is retried at once.
    McpSelection selection = harness.Select({"mcp/fake/*"}, {server});
    EXPECT_FALSE(selection.tools.empty()) << AllNotices(selection);
    EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady);
    harness.manager().Shutdown();  // returns: nothing is left counted
  }
}

// The manager's own thread that runs a server's start.
TEST(ThreadRefusalTest, AStartThatCannotGetAThreadIsANoticeAndShutdownStillReturns) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  {
    RefuseThreadStartsForTesting refuse("starting MCP server \"fake\"");
    McpSelection selection = harness.Select({"mcp/fake/*"}, {server});
    EXPECT_EQ(refuse.refused(), 1);
    EXPECT_TRUE(selection.tools.empty());
    EXPECT_THAT(AllNotices(selection),
                HasSubstr("MCP server \"fake\" is unavailable: could not start a thread for "
                          "starting MCP server \"fake\": "));
    EXPECT_EQ(CountLines(dir.Join("starts")), 0);
  }
  EXPECT_FALSE(harness.Select({"mcp/fake/*"}, {server}).tools.empty());
  harness.manager().Shutdown();
}

// A call that restarts a stopped server starts it on a thread of its own.
TEST(ThreadRefusalTest, ACallWhoseRestartCannotGetAThreadFailsAndTheNextCallWorks) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  server.idle_timeout_ms = 1000;
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "1"}}).content, "echo: 1");
  harness.clock().Advance(1000);
  ASSERT_EQ(harness.manager().StopIdleServers(), 1);
  {
    RefuseThreadStartsForTesting refuse("starting MCP server \"fake\"");
    tools::ToolOutput refused = harness.Call(server, "echo", {{"text", "2"}});
    EXPECT_EQ(refuse.refused(), 1);
    EXPECT_EQ(refused.status, events::ToolStatus::kError);
    EXPECT_THAT(refused.content,
                HasSubstr("could not start a thread for starting MCP server \"fake\""));
    EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kFailed);
  }
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "3"}}).content, "echo: 3");
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
  harness.manager().Shutdown();
}

// Without a thread for the ping, the call that timed out checks the server
// itself: the hung server is still found and replaced.
TEST(ThreadRefusalTest, AHangCheckWithoutAThreadRunsOnTheCallersThread) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  server.call_timeout_ms = 300;
  {
    RefuseThreadStartsForTesting refuse("checking whether MCP server \"fake\" hangs");
    tools::ToolOutput hung = harness.Call(server, "hang", Json::object());
    EXPECT_EQ(refuse.refused(), 1);
    EXPECT_THAT(hung.content, HasSubstr("no answer within 300 ms"));
    // The check ran before the call returned.
    EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kFailed);
    EXPECT_THAT(harness.manager().Status()[0].last_error, HasSubstr("stopped responding"));
  }
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "x"}}).content, "echo: x");
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
}

// Without a thread to stop a session's servers on, the caller stops them.
TEST(ThreadRefusalTest, DroppedServersAreStoppedOnTheCallersThreadWithoutOne) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  server.session_id = "s1";
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "1"}}).content, "echo: 1");
  {
    RefuseThreadStartsForTesting refuse("stopping the MCP servers of session s1");
    harness.manager().DropSessionServers("s1");
    EXPECT_EQ(refuse.refused(), 1);
  }
  EXPECT_TRUE(harness.manager().Status().empty());
  EXPECT_TRUE(NoChildLeft()) << "the dropped server was stopped before the call returned";
  harness.manager().Shutdown();
}

}  // namespace
}  // namespace raw::mcp
