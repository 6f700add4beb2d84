// McpClient over StdioTransport with the fake server, without the manager:
// the handshake, the tool table, message size limits and a polite close.
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "common/logging.h"
#include "common/utf8.h"
#include "daemon/mcp/mcp_client.h"
#include "daemon/mcp/stdio_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// `grace_ms` is both of the transport's shutdown graces.
std::unique_ptr<McpClient> MakeClient(std::vector<std::string> flags, size_t max_message_bytes,
                                      int64_t grace_ms = 2000) {
  StdioTransportOptions options;
  options.server_name = "fake";
  options.process.argv = testing::FakeServer("fake", std::move(flags)).command;
  EnvLookup env = testing::TestEnv();
  options.process.env["PATH"] = *env("PATH");
  options.max_message_bytes = max_message_bytes;
  options.stdin_close_grace_ms = grace_ms;
  options.term_grace_ms = grace_ms;
  McpClientOptions client_options;
  client_options.server_name = "fake";
  return std::make_unique<McpClient>(std::make_unique<StdioTransport>(std::move(options)),
                                     client_options);
}

TEST(StdioClientTest, ConnectsAndDescribesTheServer) {
  testing::TempDir dir;
  const std::string stops = dir.Join("stops");
  std::unique_ptr<McpClient> client =
      MakeClient({"--pages", "2", "--stop-log", stops, "fake"}, 1 << 20, /*grace_ms=*/3600000);
  ASSERT_TRUE(client->Connect().ok());
  EXPECT_TRUE(client->alive());
  ServerInfo info = client->server_info();
  EXPECT_EQ(info.name, "fake");
  EXPECT_EQ(info.version, "1.0");
  EXPECT_EQ(info.protocol_version, "2025-11-25");
  EXPECT_TRUE(info.has_tools);
  EXPECT_EQ(client->tools().size(), 17u);
  EXPECT_EQ(client->tools_generation(), 1u);
  EXPECT_TRUE(client->Ping(5000).ok());
  // The fake exits on EOF: Close returns although each grace would last an
  // hour, and no signal reached the server (it logs its EOF and a SIGTERM).
  client->Close();
  EXPECT_EQ(testing::ReadFile(stops), "eof fake\n");
  EXPECT_FALSE(client->alive());
  EXPECT_FALSE(client->CallTool("echo", {{"text", "x"}}, CallOptions()).ok());
}

TEST(StdioClientTest, AMessageOverTheLimitEndsTheConnection) {
  std::unique_ptr<McpClient> client = MakeClient({}, 64 * 1024);
  ASSERT_TRUE(client->Connect().ok());
  absl::StatusOr<CallToolResult> small = client->CallTool("huge", {{"bytes", 1000}}, CallOptions());
  ASSERT_TRUE(small.ok()) << small.status();
  absl::StatusOr<CallToolResult> big = client->CallTool("huge", {{"bytes", 200000}}, CallOptions());
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(absl::IsUnavailable(big.status())) << big.status();
  EXPECT_THAT(big.status().message(), HasSubstr("longer than 65536 bytes"));
  EXPECT_FALSE(client->alive());
}

TEST(StdioClientTest, AFloodOfStderrLinesIsRateLimitedInTheLog) {
  testing::CapturedLog captured;
  ASSERT_TRUE(captured.ok());
  std::unique_ptr<McpClient> client = MakeClient({"--stderr-flood", "20000"}, 1 << 20);
  ASSERT_TRUE(client->Connect().ok());
  client->Close();  // the transport reads stderr to the end and reports what it dropped
  client.reset();
  const std::string log = captured.Stop();
  const int logged = testing::CountLinesWith(log, "fake server: flood line");
  const std::string summary = testing::LastLineWith(log, "suppressed");
  // The burst (200) and 20 a second for however long the test ran; never
  // the whole flood.
  EXPECT_GE(logged, 200);
  EXPECT_LT(logged, 20000);
  EXPECT_THAT(summary, HasSubstr("stderr lines of mcp server fake suppressed (more than 20 a "
                                 "second)"));
}

// What the server writes reaches the log escaped: a stdout line that is not
// JSON-RPC, a stderr line and the text of a notifications/message, each with
// terminal escapes, a bell, a bidi override, a newline that would forge a log
// line, and bytes that are not UTF-8. The known secret is still hidden.
TEST(StdioClientTest, ServerTextIsEscapedInTheLog) {
  testing::CapturedLog captured;
  ASSERT_TRUE(captured.ok());
  SetLogFilter([](const std::string& text) {
    return absl::StrReplaceAll(text, {{"s3cr3t-value", "[redacted]"}});
  });
  const std::string noisy = "\x1b[31mred\x1b[0m\x07 \xe2\x80\xae rtl s3cr3t-value \xff\xfe\rforged";
  std::unique_ptr<McpClient> client =
      MakeClient({"--stdout-hex", absl::BytesToHexString("out " + noisy), "--stderr-hex",
                  absl::BytesToHexString("err " + noisy), "--log-level", "\"info\"", "--log-data",
                  R"("msg \u001b[31mred\u001b[0m\u0007 \u202e rtl s3cr3t-value\nforged")"},
                 1 << 20);
  ASSERT_TRUE(client->Connect().ok());
  client->Close();
  client.reset();
  SetLogFilter(nullptr);
  const std::string log = captured.Stop();

  for (const std::string& line : std::vector<std::string>(absl::StrSplit(log, '\n'))) {
    EXPECT_EQ(ValidUtf8Prefix(line), line.size()) << line;
    for (char c : line) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << line;
    EXPECT_THAT(line, Not(HasSubstr("\xe2\x80\xae")));
    EXPECT_FALSE(line.starts_with("forged")) << line;
  }
  EXPECT_THAT(log, HasSubstr("not JSON-RPC: out \\x1B[31mred\\x1B[0m\\x07 \\u202E rtl "
                             "[redacted] \\xFF\\xFE\\rforged"));
  EXPECT_THAT(log, HasSubstr("mcp server fake: err \\x1B[31mred\\x1B[0m\\x07 \\u202E rtl "
                             "[redacted] \\xFF\\xFE\\rforged"));
  EXPECT_THAT(log, HasSubstr("mcp server fake [info]: msg \\x1B[31mred\\x1B[0m\\x07 \\u202E "
                             "rtl [redacted]\\nforged"));
  EXPECT_THAT(log, Not(HasSubstr("s3cr3t-value")));
}

TEST(StdioClientTest, AProgramThatDoesNotExistFailsClearly) {
  StdioTransportOptions options;
  options.server_name = "missing";
  options.process.argv = {"raw-no-such-mcp-server"};
  options.process.env["PATH"] = *testing::TestEnv()("PATH");
  McpClient client(std::make_unique<StdioTransport>(std::move(options)), McpClientOptions());
  absl::Status connected = client.Connect();
  EXPECT_TRUE(absl::IsNotFound(connected)) << connected;
  EXPECT_THAT(connected.message(), HasSubstr("raw-no-such-mcp-server"));
}

TEST(StdioClientTest, ACallTimesOutAndIsCancelled) {
  std::unique_ptr<McpClient> client = MakeClient({}, 1 << 20);
  ASSERT_TRUE(client->Connect().ok());
  CallOptions options;
  options.timeout_ms = 200;
  absl::StatusOr<CallToolResult> hung = client->CallTool("wait_cancel", Json::object(), options);
  EXPECT_TRUE(absl::IsDeadlineExceeded(hung.status())) << hung.status();
  // The server got notifications/cancelled for it.
  absl::StatusOr<CallToolResult> ids =
      client->CallTool("cancelled_ids", Json::object(), CallOptions());
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_NE(ids->content[0]["text"], "[]");
}

// The server stopped under a call (another session's call timed out and
// its ping failed, or the server went idle): nobody cancelled this call, so
// it does not read as cancelled.
TEST(StdioClientTest, ACallPendingWhenTheServerIsStoppedFailsAsUnavailable) {
  std::unique_ptr<McpClient> client = MakeClient({"--flood-pings", "1"}, 1 << 20);
  ASSERT_TRUE(client->Connect().ok());
  absl::Notification reached;  // the server has the call: it sent progress
  CallOptions options;
  options.on_progress = [&reached](const ProgressUpdate&) {
    if (!reached.HasBeenNotified()) reached.Notify();
  };
  absl::StatusOr<CallToolResult> hung;
  std::thread call([&] { hung = client->CallTool("hang", Json::object(), options); });
  reached.WaitForNotification();
  client->Close();
  call.join();
  EXPECT_TRUE(absl::IsUnavailable(hung.status())) << hung.status();
  EXPECT_THAT(hung.status().message(), HasSubstr("the server was stopped"));
}

}  // namespace
}  // namespace raw::mcp
