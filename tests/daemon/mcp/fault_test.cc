// Faults of a stdio server (the fake server of tests/daemon/mcp): a crash
// mid-call, a hang past the call timeout, garbage on stdout, a huge result,
// slow starts, an exit at start with backoff, a server that ignores EOF.
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "daemon/mcp/tool_result.h"
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

std::string Notices(const McpSelection& selection) {
  return absl::StrJoin(selection.notices, "\n");
}

TEST(FaultTest, CrashMidCallIsAnErrorAndTheNextUseRestarts) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});

  tools::ToolOutput crashed = harness.Call(server, "crash", Json::object());
  EXPECT_EQ(crashed.status, events::ToolStatus::kError);
  EXPECT_THAT(crashed.content, HasSubstr("MCP server \"fake\""));
  EXPECT_THAT(crashed.content, HasSubstr("exited with code 3"));
  EXPECT_THAT(crashed.content, HasSubstr("crashing on purpose"));  // its stderr

  McpSelection after = harness.Select({"mcp/fake/echo"}, {server});
  EXPECT_THAT(Notices(after), HasSubstr("MCP server \"fake\" stopped unexpectedly"));
  ASSERT_EQ(after.tools.size(), 1u) << "the listed tools stay while it restarts";
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kFailed);

  tools::ToolOutput echoed = harness.Call(server, "echo", {{"text", "again"}});
  EXPECT_EQ(echoed.status, events::ToolStatus::kOk) << echoed.content;
  EXPECT_EQ(echoed.content, "echo: again");
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
  // The notice is given once.
  EXPECT_TRUE(harness.Select({"mcp/fake/echo"}, {server}).notices.empty());
}

// The pidfds this process holds: one per stdio server connection that is
// open (a sanitizer's runtime opens other descriptors of its own).
int OpenPidfds() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().find("pidfd") != std::string::npos) ++n;
  }
  return n;
}

// A server that exits between calls leaves a dead connection (its pipes,
// pidfd and writer thread); the idle check closes it rather than keeping
// it until the server's next use, which may never come. The connection's
// pidfd stands for it.
TEST(FaultTest, AServerThatExitsBetweenCallsHasItsConnectionClosedByTheIdleCheck) {
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--exit-after-calls", "1"});
  const int before = OpenPidfds();
  tools::ToolOutput echoed = harness.Call(server, "echo", {{"text", "last"}});
  EXPECT_EQ(echoed.status, events::ToolStatus::kOk) << echoed.content;
  ASSERT_TRUE(harness.WaitForState("fake", ServerState::kFailed));
  EXPECT_EQ(OpenPidfds(), before + 1) << "the dead connection is still open";

  harness.manager().StopIdleServers();
  EXPECT_EQ(OpenPidfds(), before);
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kFailed);
  // The next use starts it again, as after any unexpected stop.
  tools::ToolOutput again = harness.Call(server, "echo", {{"text", "again"}});
  EXPECT_EQ(again.status, events::ToolStatus::kOk) << again.content;
  EXPECT_EQ(again.content, "echo: again");
}

TEST(FaultTest, HangPastTheTimeoutIsCancelledAndTheServerReplaced) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  server.call_timeout_ms = 300;

  // The tool sleeps for an hour: the call returns at all only by its timeout.
  tools::ToolOutput hung = harness.Call(server, "hang", Json::object());
  EXPECT_EQ(hung.status, events::ToolStatus::kError);
  EXPECT_THAT(hung.content, HasSubstr("no answer within 300 ms; the call was cancelled"));

  // The ping that finds it hung runs after the call returned.
  ASSERT_TRUE(harness.WaitForState("fake", ServerState::kFailed));
  std::vector<McpServerStatus> status = harness.manager().Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].state, ServerState::kFailed);
  EXPECT_THAT(status[0].last_error, HasSubstr("stopped responding"));
  EXPECT_THAT(Notices(harness.Select({"mcp/fake/*"}, {server})), HasSubstr("stopped responding"));

  tools::ToolOutput echoed = harness.Call(server, "echo", {{"text", "x"}});
  EXPECT_EQ(echoed.status, events::ToolStatus::kOk) << echoed.content;
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
}

// The call returns at its timeout, not after the ping that checks the
// server: the ping here would wait 20 s (the server sleeps and never answers
// it), and the server is still ready, being checked, when the call is back.
// A selection meanwhile waits for the verdict and reports it.
TEST(FaultTest, AHungCallReturnsAtItsTimeoutBeforeTheServerIsChecked) {
  TempDir dir;
  ManagerHarness harness(testing::TestEnv(), nullptr, nullptr, /*grace_ms=*/200,
                         /*hang_ping_timeout_ms=*/20000);
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  server.call_timeout_ms = 300;

  tools::ToolOutput hung = harness.Call(server, "hang", Json::object());
  EXPECT_EQ(hung.status, events::ToolStatus::kError);
  EXPECT_THAT(hung.content, HasSubstr("no answer within 300 ms; the call was cancelled"));
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady)
      << "the call waited for the ping";
  // Interrupted, a selection stops waiting for the verdict.
  testing::TestContext context;
  context.cancel.Cancel("user interrupt");
  harness.manager().Select({"mcp/fake/*"}, {{"fake", server}}, ExpandFn(), "", true,
                           &context.cancel);
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady);
  // Shutdown ends the check at once (its ping fails with the connection).
  harness.manager().Shutdown();
  EXPECT_EQ(CountLines(dir.Join("starts")), 1);
}

TEST(FaultTest, GarbageOnStdoutIsSkipped) {
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--garbage-at-start", "--stderr-noise"});
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "a"}}).content, "echo: a");
  tools::ToolOutput garbage = harness.Call(server, "garbage", Json::object());
  EXPECT_EQ(garbage.status, events::ToolStatus::kOk);
  EXPECT_EQ(garbage.content, "after garbage");
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "b"}}).content, "echo: b");
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady);
}

TEST(FaultTest, HugeResultIsCutToTheBound) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  tools::ToolOutput huge = harness.Call(server, "huge", {{"bytes", 1000000}});
  EXPECT_EQ(huge.status, events::ToolStatus::kOk);
  EXPECT_LE(huge.content.size(), kMaxToolResultBytes + 100);
  EXPECT_THAT(huge.content, HasSubstr("[output truncated: 897600 of 1000000 bytes left out]"));
}

// The server takes ten minutes to start: the selection returns at all only
// by the startup timeout.
TEST(FaultTest, SlowStartPastTheStartupTimeoutIsANotice) {
  ManagerHarness harness;
  auto server = FakeServer("slow", {"--slow-start", "600000"});
  server.startup_timeout_ms = 300;
  McpSelection selection = harness.Select({"mcp/slow/*"}, {server});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(Notices(selection), HasSubstr("MCP server \"slow\" is unavailable: failed to start"));
  EXPECT_THAT(Notices(selection), HasSubstr("within 300 ms"));
}

// The startup timeout bounds the whole start, not each request: a server
// that answers each page of its tool list well in time (400 ms), but takes
// longer than the limit over all six, fails to start.
TEST(FaultTest, AToolListSlowerThanTheStartupTimeoutIsANotice) {
  ManagerHarness harness;
  auto server = FakeServer("paging", {"--pages", "6", "--page-delay", "400"});
  server.startup_timeout_ms = 1500;
  McpSelection selection = harness.Select({"mcp/paging/*"}, {server});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(Notices(selection),
              HasSubstr("MCP server \"paging\" is unavailable: failed to start: tools/list "
                        "failed: no answer to tools/list within 1500 ms of the start"));

  ManagerHarness quicker;
  auto two_pages = FakeServer("paging", {"--pages", "2", "--page-delay", "100"});
  two_pages.startup_timeout_ms = 1500;
  EXPECT_EQ(quicker.Call(two_pages, "echo", {{"text", "in time"}}).content, "echo: in time");
}

TEST(FaultTest, SlowStartWithinTheStartupTimeoutWorks) {
  ManagerHarness harness;
  auto server = FakeServer("slow", {"--slow-start", "300"});
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "late"}}).content, "echo: late");
}

// A call that has to restart its server (stopped when idle) ends at once
// when interrupted: it returns while the start is still held (the server
// waits on a gate before reading anything); the start carries on, and the
// next call uses it.
TEST(FaultTest, InterruptDuringARestartEndsTheCallAtOnce) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("gated", {"--start-gate", dir.Join("gate")});
  // Nothing but the gate or this timeout ends a held start: a call that
  // waited for the start would end with the start's failure.
  server.startup_timeout_ms = 30000;
  server.idle_timeout_ms = 1000;
  ASSERT_EQ(harness.Call(server, "echo", {{"text", "first"}}).content, "echo: first");
  harness.clock().Advance(1000);
  ASSERT_EQ(harness.manager().StopIdleServers(), 1);

  testing::StartGate gate(dir.Join("gate"));  // holds the starts from here on
  testing::TestContext context;
  std::thread interrupter([&] {
    harness.WaitForState("gated", ServerState::kStarting);
    context.cancel.Cancel("user interrupt");
  });
  tools::ToolOutput interrupted = harness.Call(server, "echo", {{"text", "second"}}, &context);
  interrupter.join();
  EXPECT_EQ(interrupted.status, events::ToolStatus::kCancelled) << interrupted.content;
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kStarting)
      << "the call waited for the start";

  gate.Release();
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "third"}}).content, "echo: third");
  EXPECT_EQ(harness.manager().Status()[0].consecutive_failures, 0);
}

TEST(FaultTest, FailedStartsBackOffExponentially) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("bad", {"--start-log", dir.Join("starts"), "--exit-at-start", "1"});

  McpSelection first = harness.Select({"mcp/bad/*"}, {server});
  EXPECT_THAT(Notices(first), HasSubstr("exited with code 1"));
  EXPECT_THAT(Notices(first), HasSubstr("refusing to start"));
  EXPECT_EQ(CountLines(dir.Join("starts")), 1);

  // The next use after a failure retries at once...
  harness.Select({"mcp/bad/*"}, {server});
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
  // ...then attempts wait 1 s, 2 s, ...
  McpSelection waiting = harness.Select({"mcp/bad/*"}, {server});
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
  EXPECT_THAT(Notices(waiting), HasSubstr("next attempt in 1000 ms"));
  harness.clock().Advance(1000);
  harness.Select({"mcp/bad/*"}, {server});
  EXPECT_EQ(CountLines(dir.Join("starts")), 3);
  harness.clock().Advance(1999);
  EXPECT_THAT(Notices(harness.Select({"mcp/bad/*"}, {server})), HasSubstr("next attempt in 1 ms"));
  harness.clock().Advance(1);
  harness.Select({"mcp/bad/*"}, {server});
  EXPECT_EQ(CountLines(dir.Join("starts")), 4);
  EXPECT_EQ(harness.manager().Status()[0].consecutive_failures, 4);
}

// Shutdown closes a server's stdin, then sends its process group SIGTERM,
// then SIGKILL. The graces are long enough that the server always reads its
// EOF, and handles its SIGTERM, before the next step of its stop.
TEST(FaultTest, ShutdownKillsAServerThatIgnoresEofAndItsProcessGroup) {
  TempDir dir;
  const std::string log = dir.Join("stops");
  ManagerHarness harness(testing::TestEnv(), nullptr, nullptr, /*grace_ms=*/1000);
  auto server = FakeServer("stubborn", {"--ignore-eof", "--stop-log", log, "stubborn"});
  tools::ToolOutput spawned = harness.Call(server, "spawn_child", Json::object());
  ASSERT_EQ(spawned.status, events::ToolStatus::kOk) << spawned.content;
  int server_pid = harness.manager().FindServer("stubborn")->pid();
  ASSERT_GT(server_pid, 0);
  int grandchild = std::stoi(spawned.content);
  int grandchild_fd = static_cast<int>(syscall(SYS_pidfd_open, grandchild, 0));
  ASSERT_GE(grandchild_fd, 0);

  harness.manager().Shutdown();
  // It read its EOF, then got SIGTERM, and ignored both: it never exits by
  // itself, so only SIGKILL ended it.
  EXPECT_EQ(testing::ReadFile(log), "eof stubborn\nterm stubborn\n");
  EXPECT_EQ(kill(server_pid, 0), -1) << "the server was reaped";
  EXPECT_TRUE(testing::WaitReadable(grandchild_fd, 10000)) << "its process group was killed";
  close(grandchild_fd);
}

// Servers stop all at once: each gets its EOF before any gets SIGTERM (one
// after another, the second's EOF would come after the first's SIGTERM and
// kill). The graces are long enough that a server always reads its EOF, and
// handles its SIGTERM, before the next step of its stop.
TEST(FaultTest, ShutdownStopsServersThatIgnoreEofAllAtOnce) {
  TempDir dir;
  const std::string log = dir.Join("stops");
  ManagerHarness harness(testing::TestEnv(), nullptr, nullptr, /*grace_ms=*/1000);
  std::vector<config::McpServerConfig> servers;
  for (const char* name : {"stubborn1", "stubborn2", "stubborn3", "stubborn4"}) {
    servers.push_back(FakeServer(name, {"--ignore-eof", "--stop-log", log, name}));
  }
  McpSelection selected = harness.Select({"mcp/*/echo"}, servers);
  ASSERT_EQ(selected.tools.size(), servers.size()) << Notices(selected);

  harness.manager().Shutdown();
  for (const auto& status : harness.manager().Status()) {
    EXPECT_EQ(status.state, ServerState::kStopped) << status.name;
  }
  // Each server appends "eof NAME" when its stdin closes and "term NAME" on
  // SIGTERM.
  const std::vector<std::string> events =
      absl::StrSplit(testing::ReadFile(log), '\n', absl::SkipEmpty());
  std::vector<std::string> eofs, terms;
  for (const std::string& event : events) {
    (absl::StartsWith(event, "eof ") ? eofs : terms).push_back(event);
  }
  EXPECT_THAT(eofs, ::testing::UnorderedElementsAre("eof stubborn1", "eof stubborn2",
                                                    "eof stubborn3", "eof stubborn4"));
  EXPECT_THAT(terms, ::testing::UnorderedElementsAre("term stubborn1", "term stubborn2",
                                                     "term stubborn3", "term stubborn4"));
  // Every EOF precedes every SIGTERM.
  std::vector<std::string> all_eofs_first = eofs;
  all_eofs_first.insert(all_eofs_first.end(), terms.begin(), terms.end());
  EXPECT_EQ(events, all_eofs_first) << absl::StrJoin(events, "\n");
}

}  // namespace
}  // namespace raw::mcp
