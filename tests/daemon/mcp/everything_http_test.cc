// The official reference server @modelcontextprotocol/server-everything in
// its Streamable HTTP mode on a free loopback port, reached through the
// daemon's libcurl client.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/mcp/http_transport.h"
#include "daemon/mcp/mcp_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::FindSpec;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using testing::TestContext;

// The local ports of this machine's TCP connections to port `port` of
// 127.0.0.1 (IPv4, /proc/net/tcp), both open ones and those closed within
// the last minute, which stay listed in TIME_WAIT: every connection made to
// the port recently.
std::set<int> ClientPortsTo(int port) {
  std::set<int> ports;
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    unsigned local_address = 0, local_port = 0, remote_address = 0, remote_port = 0;
    if (std::sscanf(line.c_str(), " %*d: %8X:%4X %8X:%4X", &local_address, &local_port,
                    &remote_address, &remote_port) == 4 &&
        remote_port == static_cast<unsigned>(port)) {
      ports.insert(static_cast<int>(local_port));
    }
  }
  return ports;
}

class EverythingHttpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::ReferenceServersInstalled(&problem_)) return;
    server_ = new testing::EverythingHttpServer();
    problem_ = server_->Start();
    http_ = new http::CurlHttpClient();
    harness_ = new ManagerHarness(testing::TestEnv(), http_);
  }
  static void TearDownTestSuite() {
    delete harness_;
    delete http_;
    delete server_;
    harness_ = nullptr;
    http_ = nullptr;
    server_ = nullptr;
  }
  void SetUp() override {
    if (harness_ == nullptr || !problem_.empty()) GTEST_SKIP() << problem_;
  }

  static config::McpServerConfig Web() {
    config::McpServerConfig config;
    config.name = "web";
    config.url = server_->url();
    config.headers = {{"X-Raw-Test", "${TOKEN}"}};
    return config;
  }
  tools::ToolOutput Call(const std::string& tool, const Json& arguments,
                         TestContext* context = nullptr) {
    harness_->vars["TOKEN"] = "not-a-secret";
    McpSelection selection = harness_->Select({"mcp/web/" + tool}, {Web()});
    const tools::ToolSpec* spec = FindSpec(selection.tools, "mcp/web/" + tool);
    if (spec == nullptr) return tools::ToolOutput::Error(absl::StrJoin(selection.notices, "\n"));
    TestContext local;
    return spec->handler(arguments, (context != nullptr ? context : &local)->Get());
  }
  // A client of its own, to look at the session.
  static std::unique_ptr<McpClient> Connect(HttpTransport** transport) {
    HttpTransportOptions options;
    options.server_name = "web";
    options.url = server_->url();
    options.client = http_;
    auto owned = std::make_unique<HttpTransport>(options);
    *transport = owned.get();
    McpClientOptions client_options;
    client_options.server_name = "web";
    auto client = std::make_unique<McpClient>(std::move(owned), client_options);
    absl::Status connected = client->Connect();
    EXPECT_TRUE(connected.ok()) << connected;
    return client;
  }
  static absl::Status Delete(const std::string& session, int* status) {
    http::HttpRequest request;
    request.method = "DELETE";
    request.url = server_->url();
    request.headers = {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}};
    http::HttpResponse response;
    CancelToken never;
    absl::Status sent = http::SendAndCollect(*http_, request, never, &response);
    *status = response.status;
    return sent;
  }

  static inline std::string problem_;
  static inline testing::EverythingHttpServer* server_ = nullptr;
  static inline http::CurlHttpClient* http_ = nullptr;
  static inline ManagerHarness* harness_ = nullptr;
};

TEST_F(EverythingHttpTest, ListsAndCallsTools) {
  tools::ToolOutput echo = Call("echo", {{"message", "over http"}});
  EXPECT_EQ(echo.status, events::ToolStatus::kOk) << echo.content;
  EXPECT_EQ(echo.content, "Echo: over http");
  std::vector<McpServerStatus> status = harness_->manager().Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].transport, "http");
  EXPECT_EQ(status[0].endpoint, server_->url());
  EXPECT_EQ(status[0].protocol_version, "2025-11-25");
  EXPECT_GE(status[0].tools.size(), 12u);
}

TEST_F(EverythingHttpTest, AToolErrorIsAnErrorResult) {
  tools::ToolOutput bad = Call("get-sum", {{"a", "two"}, {"b", 1}});
  EXPECT_EQ(bad.status, events::ToolStatus::kError);
  EXPECT_THAT(bad.content, HasSubstr("Input validation error"));
}

TEST_F(EverythingHttpTest, ReportsProgressFromTheEventStream) {
  TestContext context;
  tools::ToolOutput done =
      Call("trigger-long-running-operation", {{"duration", 1}, {"steps", 2}}, &context);
  EXPECT_THAT(done.content, HasSubstr("Long running operation completed"));
  absl::MutexLock lock(&context.mu);
  ASSERT_EQ(context.progress.size(), 2u);
  EXPECT_EQ(context.progress[1].progress, 2);
}

TEST_F(EverythingHttpTest, CancelsAnInFlightCall) {
  harness_->vars["TOKEN"] = "not-a-secret";
  McpSelection selection = harness_->Select({"mcp/web/*"}, {Web()});
  const tools::ToolSpec* spec = FindSpec(selection.tools, "mcp/web/trigger-long-running-operation");
  ASSERT_NE(spec, nullptr);
  TestContext context;
  // An hour-long operation, a step a second: the call returns at all only
  // by its cancellation.
  tools::ToolOutput cancelled = spec->handler(
      {{"duration", 3600}, {"steps", 3600}},
      context.Get([&](const tools::ToolProgress&) { context.cancel.Cancel("interrupted"); }));
  EXPECT_EQ(cancelled.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(Call("echo", {{"message", "after"}}).content, "Echo: after");
}

TEST_F(EverythingHttpTest, AForgottenSessionIsReplacedByANewOne) {
  HttpTransport* transport = nullptr;
  std::unique_ptr<McpClient> client = Connect(&transport);
  std::string first = transport->session_id();
  ASSERT_FALSE(first.empty());
  int status = 0;
  ASSERT_TRUE(Delete(first, &status).ok());
  ASSERT_EQ(status, 200);

  CallOptions options;
  absl::StatusOr<CallToolResult> result =
      client->CallTool("echo", {{"message", "new session"}}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->content[0]["text"], "Echo: new session");
  EXPECT_FALSE(transport->session_id().empty());
  EXPECT_NE(transport->session_id(), first);
}

TEST_F(EverythingHttpTest, SequentialCallsKeepTheirConnection) {
  HttpTransport* transport = nullptr;
  std::unique_ptr<McpClient> client = Connect(&transport);
  const std::set<int> before = ClientPortsTo(server_->port());
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) {
    absl::StatusOr<CallToolResult> result =
        client->CallTool("echo", {{"message", "again"}}, CallOptions());
    ASSERT_TRUE(result.ok()) << result.status();
  }
  const std::set<int> after = ClientPortsTo(server_->port());
  std::set<int> opened;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::inserter(opened, opened.end()));
  // A connection per call would be 20. An answer is handed over before its
  // transfer ends, so the next call may start before the previous
  // connection is back in the pool and take a second one: a few, not one.
  EXPECT_LE(opened.size(), 3u) << "connections opened for " << kCalls << " calls";
}

TEST_F(EverythingHttpTest, CloseEndsTheSession) {
  HttpTransport* transport = nullptr;
  std::unique_ptr<McpClient> client = Connect(&transport);
  std::string session = transport->session_id();
  ASSERT_FALSE(session.empty());
  client->Close();
  // The server forgot it: a second DELETE is refused.
  int status = 0;
  ASSERT_TRUE(Delete(session, &status).ok());
  EXPECT_EQ(status, 400);
}

}  // namespace
}  // namespace raw::mcp
