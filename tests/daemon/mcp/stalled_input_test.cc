// A stdio server that stops reading its input holds no one: while it floods
// the client with ping requests and reads none of the answers, a call still
// ends at its timeout or when interrupted, a new request fails at once, and
// stopping the server (or the daemon) ends its process; a message the client
// writes is finished before the next one starts, and a write the server cuts
// short ends the connection.
//
// Each step that would wait on the server's pipe runs on a thread of its own
// and is given kStuckMs: one still running then fails the test (and the
// server is killed so that it ends) instead of hanging it.
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "daemon/mcp/mcp_client.h"
#include "daemon/mcp/stdio_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::FakeServer;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using testing::TempDir;

// Far more ping requests than the pipe to the server and the client's queue
// of messages for it hold together.
constexpr char kFlood[] = "20000";
// Far more than any step here needs; less than a write that waited for the
// server used to hold a caller (10 s).
constexpr int64_t kStuckMs = 8000;

// Runs `body` on a thread of its own from construction. `server_pid` is
// the process group to kill when the body is stuck.
class Background {
 public:
  Background(int server_pid, std::function<void()> body)
      : server_pid_(server_pid), thread_([this, body = std::move(body)] {
          body();
          done_.Notify();
        }) {}
  ~Background() {
    if (thread_.joinable()) Finished();
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  // Waits up to kStuckMs for the body to return. A body still running then
  // is stuck: the server's process group is killed, which ends every wait on
  // it, and false is returned.
  bool Finished() {
    bool finished = done_.WaitForNotificationWithTimeout(absl::Milliseconds(kStuckMs));
    if (!finished && server_pid_ > 0) kill(-server_pid_, SIGKILL);
    thread_.join();
    return finished;
  }

 private:
  const int server_pid_;
  absl::Notification done_;
  std::thread thread_;
};

bool Returns(int server_pid, std::function<void()> body) {
  return Background(server_pid, std::move(body)).Finished();
}

int OpenPidfd(int pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// Waits for the first progress of a call made with `context`: the fake sends
// it after its flood of pings, so the client has read the flood by then.
bool WaitForProgress(testing::TestContext& context) {
  absl::MutexLock lock(&context.mu);
  auto arrived = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(context.mu) {
    return !context.progress.empty();
  };
  return context.mu.AwaitWithTimeout(absl::Condition(&arrived), absl::Milliseconds(kStuckMs));
}

// Starts `server`, with a call that must succeed; returns its pid.
int StartServer(ManagerHarness& harness, const config::McpServerConfig& server) {
  tools::ToolOutput up = harness.Call(server, "echo", {{"text", "up"}});
  EXPECT_EQ(up.content, "echo: up");
  auto managed = harness.manager().FindServer(server.name);
  return managed != nullptr ? managed->pid() : 0;
}

TEST(StalledInputTest, ACallEndsAtItsTimeoutAndTheServerIsStoppedAsHung) {
  ManagerHarness harness;
  auto server = FakeServer("flood", {"--flood-pings", kFlood});
  server.call_timeout_ms = 500;
  const int pid = StartServer(harness, server);
  ASSERT_GT(pid, 0);
  const int pidfd = OpenPidfd(pid);
  ASSERT_GE(pidfd, 0);

  tools::ToolOutput output;
  ASSERT_TRUE(Returns(pid, [&] { output = harness.Call(server, "hang", Json::object()); }));
  EXPECT_EQ(output.status, events::ToolStatus::kError);
  EXPECT_THAT(output.content, HasSubstr("no answer within 500 ms; the call was cancelled"));

  // The ping that checks it cannot reach it either.
  ASSERT_TRUE(harness.WaitForState("flood", ServerState::kFailed));
  EXPECT_THAT(harness.manager().Status()[0].last_error, HasSubstr("stopped responding"));
  EXPECT_TRUE(testing::WaitReadable(pidfd, kStuckMs)) << "the server process is gone";
  close(pidfd);
}

TEST(StalledInputTest, AnInterruptEndsTheCallAtOnce) {
  ManagerHarness harness;
  auto server = FakeServer("flood", {"--flood-pings", kFlood});
  const int pid = StartServer(harness, server);
  ASSERT_GT(pid, 0);

  testing::TestContext context;
  tools::ToolOutput output;
  Background call(pid, [&] { output = harness.Call(server, "hang", Json::object(), &context); });
  EXPECT_TRUE(WaitForProgress(context)) << "the client did not read the flood";
  context.cancel.Cancel("user interrupt");
  ASSERT_TRUE(call.Finished());
  EXPECT_EQ(output.status, events::ToolStatus::kCancelled) << output.content;
}

TEST(StalledInputTest, ShutdownEndsTheServerProcess) {
  ManagerHarness harness;
  auto server = FakeServer("flood", {"--flood-pings", kFlood});
  const int pid = StartServer(harness, server);
  ASSERT_GT(pid, 0);
  const int pidfd = OpenPidfd(pid);
  ASSERT_GE(pidfd, 0);

  testing::TestContext context;
  tools::ToolOutput output;
  Background call(pid, [&] { output = harness.Call(server, "hang", Json::object(), &context); });
  EXPECT_TRUE(WaitForProgress(context)) << "the client did not read the flood";
  EXPECT_TRUE(Returns(pid, [&] { harness.manager().Shutdown(); }));
  ASSERT_TRUE(call.Finished());
  EXPECT_NE(output.status, events::ToolStatus::kOk) << output.content;
  // Shutdown returns once the server was reaped.
  EXPECT_TRUE(testing::WaitReadable(pidfd, 0)) << "the server process is gone";
  close(pidfd);
}

// A request that finds the queue for the server full fails at once; the
// server is then stopped as failed, and the next call starts it again.
TEST(StalledInputTest, ARequestThatFindsTheServerNotReadingFailsAtOnce) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("flood", {"--flood-pings", kFlood, "--start-log", dir.Join("starts")});
  const int pid = StartServer(harness, server);
  ASSERT_GT(pid, 0);

  testing::TestContext context;
  tools::ToolOutput flooded;
  Background call(pid, [&] { flooded = harness.Call(server, "hang", Json::object(), &context); });
  EXPECT_TRUE(WaitForProgress(context)) << "the client did not read the flood";
  tools::ToolOutput refused;
  ASSERT_TRUE(Returns(pid, [&] { refused = harness.Call(server, "echo", {{"text", "x"}}); }));
  EXPECT_EQ(refused.status, events::ToolStatus::kError);
  EXPECT_THAT(refused.content, HasSubstr("does not read its input"));
  ASSERT_TRUE(call.Finished());
  EXPECT_NE(flooded.status, events::ToolStatus::kOk) << "its connection was closed";

  EXPECT_EQ(harness.Call(server, "echo", {{"text", "again"}}).content, "echo: again");
  EXPECT_EQ(testing::CountLines(dir.Join("starts")), 2);
}

struct StdioClient {
  std::unique_ptr<McpClient> client;
  int pid = 0;
  absl::Notification closed;
  absl::Status closed_reason;
};

// A client of the fake run with `flags`, connected.
void Connect(std::vector<std::string> flags, StdioClient& out) {
  StdioTransportOptions options;
  options.server_name = "fake";
  options.process.argv = FakeServer("fake", std::move(flags)).command;
  options.process.env["PATH"] = *testing::TestEnv()("PATH");
  options.stdin_close_grace_ms = 200;
  options.term_grace_ms = 200;
  auto transport = std::make_unique<StdioTransport>(std::move(options));
  StdioTransport* raw_transport = transport.get();
  McpClientOptions client_options;
  client_options.server_name = "fake";
  client_options.on_closed = [&out](const absl::Status& reason) {
    out.closed_reason = reason;
    out.closed.Notify();
  };
  out.client = std::make_unique<McpClient>(std::move(transport), client_options);
  ASSERT_TRUE(out.client->Connect().ok());
  out.pid = raw_transport->pid();
}

// Four times what a pipe holds: written part-way while the server reads
// nothing.
const std::string& BigText() {
  static const std::string* text = new std::string(256 * 1024, 'a');
  return *text;
}

TEST(StalledInputTest, AMessageIsWrittenWholeBeforeTheNextOneStarts) {
  TempDir dir;
  testing::StartGate gate(dir.Join("stall"));
  const std::string input_log = dir.Join("input");
  StdioClient fake;
  ASSERT_NO_FATAL_FAILURE(
      Connect({"--stall-gate", dir.Join("stall"), "--input-log", input_log}, fake));
  // It answers this call, then reads nothing until the gate opens.
  ASSERT_TRUE(fake.client->CallTool("echo", {{"text", "stall"}}, CallOptions()).ok());

  // The call ends at its timeout while its request is written part-way; its
  // cancellation waits behind it.
  CallOptions quick;
  quick.timeout_ms = 300;
  absl::StatusOr<CallToolResult> big;
  ASSERT_TRUE(Returns(fake.pid, [&] {
    big = fake.client->CallTool("echo", {{"text", BigText()}}, quick);
  }));
  EXPECT_TRUE(absl::IsDeadlineExceeded(big.status())) << big.status();

  gate.Release();
  absl::StatusOr<CallToolResult> next;
  ASSERT_TRUE(Returns(fake.pid, [&] {
    next = fake.client->CallTool("echo", {{"text", "next"}}, CallOptions());
  }));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->content[0]["text"], "echo: next");

  // Every line the server read is one whole message.
  std::vector<std::string> lines =
      absl::StrSplit(testing::ReadFile(input_log), '\n', absl::SkipEmpty());
  EXPECT_GE(lines.size(), 5u);  // initialize, initialized, tools/list, two calls, ...
  bool saw_big = false;
  for (const std::string& line : lines) {
    absl::StatusOr<Json> message = ParseJson(line);
    EXPECT_TRUE(message.ok()) << line.substr(0, 200);
    if (line.size() > BigText().size()) saw_big = true;
  }
  EXPECT_TRUE(saw_big);
  fake.client->Close();
}

TEST(StalledInputTest, AWriteCutShortEndsTheConnection) {
  TempDir dir;
  testing::StartGate gate(dir.Join("stall"));
  StdioClient fake;
  ASSERT_NO_FATAL_FAILURE(Connect({"--stall-gate", dir.Join("stall")}, fake));
  ASSERT_TRUE(fake.client->CallTool("echo", {{"text", "stall"}}, CallOptions()).ok());
  const int pidfd = OpenPidfd(fake.pid);
  ASSERT_GE(pidfd, 0);

  CallOptions quick;
  quick.timeout_ms = 300;
  absl::StatusOr<CallToolResult> big;
  ASSERT_TRUE(Returns(fake.pid, [&] {
    big = fake.client->CallTool("echo", {{"text", BigText()}}, quick);
  }));
  EXPECT_TRUE(absl::IsDeadlineExceeded(big.status())) << big.status();

  // The server closes its input with the request half read: nothing else
  // can be written after that half, so the connection ends.
  gate.Release("close");
  ASSERT_TRUE(fake.closed.WaitForNotificationWithTimeout(absl::Milliseconds(kStuckMs)));
  EXPECT_TRUE(absl::IsUnavailable(fake.closed_reason)) << fake.closed_reason;
  EXPECT_THAT(fake.closed_reason.message(), HasSubstr("closed its input"));
  EXPECT_FALSE(fake.client->alive());
  EXPECT_FALSE(fake.client->CallTool("echo", {{"text", "x"}}, CallOptions()).ok());
  EXPECT_TRUE(testing::WaitReadable(pidfd, kStuckMs)) << "the server process is gone";
  close(pidfd);
  fake.client->Close();
}

// The answers to the flood's pings that do not fit are dropped; the log
// says so a bounded number of times, not once per answer.
TEST(StalledInputTest, DroppedAnswersAreLoggedRateLimited) {
  testing::CapturedLog captured;
  ASSERT_TRUE(captured.ok());
  {
    StdioClient fake;
    ASSERT_NO_FATAL_FAILURE(Connect({"--flood-pings", kFlood}, fake));
    absl::Notification flooded;
    CallOptions options;
    options.timeout_ms = 0;
    CancelToken cancel;
    options.cancel = &cancel;
    options.on_progress = [&](const ProgressUpdate&) {
      if (!flooded.HasBeenNotified()) flooded.Notify();
    };
    Background call(fake.pid,
                    [&] { (void)fake.client->CallTool("hang", Json::object(), options); });
    EXPECT_TRUE(flooded.WaitForNotificationWithTimeout(absl::Milliseconds(kStuckMs)));
    cancel.Cancel("test");
    EXPECT_TRUE(call.Finished());
    EXPECT_TRUE(Returns(fake.pid, [&] { fake.client->Close(); }));
  }
  const std::string log = captured.Stop();
  EXPECT_LT(testing::CountLinesWith(log, "could not answer"), 1000);
  EXPECT_THAT(testing::LastLineWith(log, "dropped"), HasSubstr("mcp server fake"));
}

}  // namespace
}  // namespace raw::mcp
