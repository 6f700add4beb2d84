// LocalServer over real sockets on 127.0.0.1: the options it starts with,
// the headers every answer carries, routes and handlers, and Stop.
#include "clients/web/local_server.h"

#include <chrono>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/clients/web/local_server_fixture.h"
#include "tests/clients/web/support/raw_http_client.h"

namespace raw::web {
namespace {

using testing::Exchange;
using testing::kSessionSecret;
using testing::LocalServerTest;
using testing::RawHttpClient;
using testing::RawResponse;

TEST_F(LocalServerTest, AnswersWithTheSecurityHeaders) {
  StartServer();
  std::optional<RawResponse> r = Exchange(port_, Get("/api/echo", Bearer()));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"path":"/api/echo"})");
  EXPECT_EQ(r->headers["content-type"], "application/json");
  EXPECT_EQ(r->headers["content-security-policy"], "default-src 'none'");
  EXPECT_EQ(r->headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(r->headers["referrer-policy"], "no-referrer");
  EXPECT_EQ(r->headers["x-frame-options"], "DENY");
  EXPECT_EQ(r->headers["cache-control"], "no-store");
  EXPECT_EQ(r->headers.count("access-control-allow-origin"), 0u);
  // Rejections carry them too.
  std::optional<RawResponse> denied = Exchange(port_, Get("/api/echo"));
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->headers["x-frame-options"], "DENY");
  EXPECT_EQ(denied->headers["cache-control"], "no-store");
}

TEST_F(LocalServerTest, CallerGivesTheContentSecurityPolicy) {
  LocalServerOptions options;
  options.content_security_policy = "default-src 'self'";
  StartServer(options);
  std::optional<RawResponse> r = Exchange(port_, Get("/index.html"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->headers["content-security-policy"], "default-src 'self'");
  EXPECT_EQ(r->headers.count("cache-control"), 0u);  // the handler allowed caching
}

TEST(LocalServerStart, TheSessionSecretMustBeValidAndNotTheToken) {
  LocalServerOptions options;
  options.token = std::string(kSessionSecret);
  options.session_cookie = "raw_token";
  options.session_secret = kSessionSecret;
  EXPECT_EQ(LocalServer::Start(options, {}).status().code(), absl::StatusCode::kInvalidArgument);
  options.session_secret = "short";
  EXPECT_EQ(LocalServer::Start(options, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(LocalServerTest, PublicRouteNeedsNoTokenAndPrefixRoutesMatch) {
  StartServer();
  EXPECT_EQ(StatusOf(Get("/index.html")), 200);
  std::optional<RawResponse> r = Exchange(port_, Get("/files/a/b.txt", Bearer()));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "/files/a/b.txt");
}

TEST_F(LocalServerTest, SetCookieHelperReachesTheClient) {
  StartServer();
  std::optional<RawResponse> r = Exchange(port_, Post("", "hello"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello");
  EXPECT_EQ(r->headers["set-cookie"], "raw_token=x; HttpOnly; SameSite=Strict; Path=/");
}

TEST(LocalServerStart, NeedsTwoConnectionsAtLeast) {
  LocalServerOptions options;
  options.max_connections = 1;
  EXPECT_EQ(LocalServer::Start(options, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(LocalServerTest, SlowHandlerDoesNotStallOtherConnections) {
  StartServer();
  RawHttpClient slow(port_);
  ASSERT_TRUE(slow.Write(Get("/slow", Bearer())));
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  release_slow_.Notify();
  std::optional<RawResponse> r = slow.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(LocalServerTest, HandlerThatNeverAnswersGets504) {
  LocalServerOptions options;
  options.handler_timeout = std::chrono::milliseconds(100);
  StartServer(options);
  EXPECT_EQ(StatusOf(Get("/never", Bearer())), 504);
  never_called_.WaitForNotification();
  kept_respond_(Response{});  // too late: dropped
  server_->Stop();
  kept_respond_(Response{});  // after Stop: dropped, no crash
}

TEST_F(LocalServerTest, StopClosesKeptAliveConnections) {
  StartServer();
  RawHttpClient client(port_);
  ASSERT_TRUE(client.Write(Get("/api/echo", Bearer())));
  ASSERT_TRUE(client.ReadResponse());
  server_->Stop();
  EXPECT_TRUE(client.WaitForClose());
  server_->Stop();  // idempotent
}

TEST(LocalServerStart, RefusesBadOptions) {
  LocalServerOptions options;
  options.address = "0.0.0.0";
  auto server = LocalServer::Start(options, {});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("not loopback"), std::string::npos);
  options.address = "192.168.1.1";
  EXPECT_FALSE(LocalServer::Start(options, {}).ok());
  options.address = "127.0.0.1";
  options.token = "short";
  server = LocalServer::Start(options, {});
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("at least 32"), std::string::npos);
  options.token = "";
  Routes routes;
  routes.http.push_back({.method = "GET", .path = "no-slash", .handler = [](const Request&, Respond) {}});
  EXPECT_FALSE(LocalServer::Start(options, routes).ok());
}

TEST(LocalServerStart, TokensAreFreshAndPortsReported) {
  auto a = LocalServer::Start({}, {});
  auto b = LocalServer::Start({}, {});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->port(), 0);
  EXPECT_NE((*a)->port(), (*b)->port());
  EXPECT_NE((*a)->token(), (*b)->token());
  EXPECT_EQ((*a)->token().size(), 64u);
  EXPECT_EQ((*a)->origin(), absl::StrCat("http://127.0.0.1:", (*a)->port()));
  // The port is taken.
  LocalServerOptions same;
  same.port = (*a)->port();
  auto c = LocalServer::Start(same, {});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace raw::web
