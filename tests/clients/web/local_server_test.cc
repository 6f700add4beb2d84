// LocalServer over real sockets on 127.0.0.1, with hostile requests written
// byte for byte.
#include "clients/web/local_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "clients/web/access_token.h"
#include "clients/web/loopback_listeners.h"
#include "gtest/gtest.h"
#include "tests/clients/web/support/raw_http_client.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::web {
namespace {

using testing::Exchange;
using testing::RawHttpClient;
using testing::RawResponse;

// Sends kBurstFrames numbered frames from a thread of its own as fast as
// it can, then closes with 4000: a streamed answer's burst.
constexpr int kBurstFrames = 3000;
constexpr char kSessionSecret[] = "fedcba9876543210fedcba9876543210";
class BurstHandler : public WebSocketHandler {
 public:
  ~BurstHandler() override { OnClose(); }
  void OnOpen(std::shared_ptr<WebSocketConnection> connection) override {
    sender_ = std::thread([connection] {
      for (int i = 0; i < kBurstFrames; ++i) connection->Send(absl::StrCat(i));
      connection->Close(4000, "done");
    });
  }
  void OnText(std::string) override {}
  void OnClose() override {
    if (sender_.joinable()) sender_.join();
  }

 private:
  std::thread sender_;
};

// Hands its connection to the test, which sends on it from its own thread.
class HandOverHandler : public WebSocketHandler {
 public:
  explicit HandOverHandler(std::function<void(std::shared_ptr<WebSocketConnection>)> take)
      : take_(std::move(take)) {}
  void OnOpen(std::shared_ptr<WebSocketConnection> connection) override { take_(std::move(connection)); }
  void OnText(std::string) override {}
  void OnClose() override {}

 private:
  std::function<void(std::shared_ptr<WebSocketConnection>)> take_;
};

class LocalServerTest : public ::testing::Test {
 protected:
  // /api/echo answers the body; /api/state counts its calls (the side effect
  // a rejected request must not have); /index.html needs no token.
  void StartServer(LocalServerOptions options = {}) {
    options.session_cookie = "raw_token";
    options.session_secret = kSessionSecret;
    Routes routes;
    routes.http.push_back({.method = "GET", .path = "/api/echo", .handler = [](const Request& r, Respond respond) {
                             Response res;
                             res.body = absl::StrCat("{\"path\":\"", r.path, "\"}");
                             respond(res);
                           }});
    routes.http.push_back({.method = "POST", .path = "/api/state", .handler = [this](const Request& r, Respond respond) {
                             ++state_calls_;
                             Response res;
                             res.body = r.body;
                             res.headers.emplace_back("Set-Cookie",
                                                      SessionCookie("raw_token", "x"));
                             respond(res);
                           }});
    routes.http.push_back({.method = "GET",
                           .path = "/index.html",
                           .public_route = true,
                           .handler = [](const Request&, Respond respond) {
                             Response res;
                             res.content_type = "text/html";
                             res.body = "<p>hi</p>";
                             res.no_store = false;
                             respond(res);
                           }});
    routes.http.push_back({.method = "GET", .path = "/files/", .prefix = true, .handler = [](const Request& r, Respond respond) {
                             Response res;
                             res.body = r.path;
                             respond(res);
                           }});
    routes.http.push_back({.method = "GET", .path = "/slow", .handler = [this](const Request&, Respond respond) {
                             release_slow_.WaitForNotification();
                             respond(Response{});
                           }});
    routes.http.push_back({.method = "GET", .path = "/never", .handler = [this](const Request&, Respond respond) {
                             kept_respond_ = std::move(respond);  // answered after the timeout
                             never_called_.Notify();
                           }});
    routes.websocket.push_back({.path = "/ws", .factory = [](const Request&) { return nullptr; }});
    routes.websocket.push_back(
        {.path = "/burst", .factory = [](const Request&) { return std::make_unique<BurstHandler>(); }});
    routes.websocket.push_back({.path = "/hand-over", .factory = [this](const Request&) {
                                  return std::make_unique<HandOverHandler>(
                                      [this](std::shared_ptr<WebSocketConnection> c) {
                                        handed_over_ = std::move(c);
                                        opened_.Notify();
                                      });
                                }});
    auto server = LocalServer::Start(options, std::move(routes));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    port_ = server_->port();
  }

  std::string Host() const { return absl::StrCat("127.0.0.1:", port_); }
  std::string Get(const std::string& target, const std::string& extra = "") const {
    return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: ", Host(), "\r\n", extra, "\r\n");
  }
  std::string Bearer() const { return absl::StrCat("Authorization: Bearer ", server_->token(), "\r\n"); }
  std::string Post(const std::string& extra, const std::string& body) const {
    return absl::StrCat("POST /api/state HTTP/1.1\r\nHost: ", Host(), "\r\n", Bearer(), extra,
                        "Content-Length: ", body.size(), "\r\n\r\n", body);
  }
  int StatusOf(const std::string& request) const {
    std::optional<RawResponse> r = Exchange(port_, request);
    return r ? r->status : -1;
  }

  std::shared_ptr<WebSocketConnection> handed_over_;  // set before opened_
  absl::Notification opened_;
  std::atomic<int> state_calls_{0};
  absl::Notification release_slow_;
  absl::Notification never_called_;
  Respond kept_respond_;
  std::unique_ptr<LocalServer> server_;
  uint16_t port_ = 0;
};

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

TEST_F(LocalServerTest, TokenFromHeaderOrQuerySessionSecretFromThePortsCookie) {
  StartServer();
  EXPECT_EQ(server_->session_cookie(), absl::StrCat("raw_token_", port_));
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  EXPECT_EQ(StatusOf(Get("/api/echo?token=" + server_->token())), 200);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: a=b; raw_token_", port_, "=",
                                                   kSessionSecret, "\r\n"))),
            200);
  // The token is not a cookie value, and a cookie named for another port
  // (another server's) admits nothing.
  EXPECT_EQ(StatusOf(Get("/api/echo",
                         absl::StrCat("Cookie: raw_token_", port_, "=", server_->token(), "\r\n"))),
            401);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: raw_token=", kSessionSecret, "\r\n"))),
            401);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: raw_token_", port_ + 1, "=",
                                                   kSessionSecret, "\r\n"))),
            401);
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

TEST_F(LocalServerTest, MissingOrWrongTokenIs401) {
  StartServer();
  std::optional<RawResponse> r = Exchange(port_, Get("/api/echo"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->headers["www-authenticate"], "Bearer");
  std::string same_length = server_->token();
  same_length.back() = same_length.back() == '0' ? '1' : '0';
  EXPECT_EQ(StatusOf(Get("/api/echo", "Authorization: Bearer " + same_length + "\r\n")), 401);
  EXPECT_EQ(StatusOf(Get("/api/echo", "Authorization: Bearer " + server_->token() + "0\r\n")), 401);
  EXPECT_EQ(StatusOf(Get("/api/echo", "Authorization: Bearer \r\n")), 401);
  EXPECT_EQ(StatusOf(Get("/api/echo?token=" + same_length)), 401);
  std::string wrong_secret = kSessionSecret;
  wrong_secret.back() = 'x';
  EXPECT_EQ(StatusOf(Get("/api/echo",
                         absl::StrCat("Cookie: raw_token_", port_, "=", wrong_secret, "\r\n"))),
            401);
  // Unknown paths do not tell that they are unknown without a token.
  EXPECT_EQ(StatusOf(Get("/nowhere")), 401);
  EXPECT_EQ(StatusOf(Get("/nowhere", Bearer())), 404);
}

TEST_F(LocalServerTest, PublicRouteNeedsNoTokenAndPrefixRoutesMatch) {
  StartServer();
  EXPECT_EQ(StatusOf(Get("/index.html")), 200);
  std::optional<RawResponse> r = Exchange(port_, Get("/files/a/b.txt", Bearer()));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "/files/a/b.txt");
}

TEST_F(LocalServerTest, ForeignHostIs421) {
  StartServer();
  auto with_host = [&](const std::string& host) {
    return absl::StrCat("GET /api/echo HTTP/1.1\r\nHost: ", host, "\r\n", Bearer(), "\r\n");
  };
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("attacker.example:", port_))), 421);
  EXPECT_EQ(StatusOf(with_host("127.0.0.1")), 421);
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("127.0.0.1:", port_ + 1))), 421);
  EXPECT_EQ(StatusOf(absl::StrCat("GET /api/echo HTTP/1.0\r\n", Bearer(), "\r\n")), 421);
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("localhost:", port_))), 200);
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("[::1]:", port_))), 200);
}

// A socket listening on [::1]:port (IPV6_V6ONLY), as another program
// would hold it; -1 when it cannot be bound.
ListenerFd ListenOnV6(uint16_t port) {
  ListenerFd fd(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  a.sin6_port = htons(port);
  if (fd.get() < 0 || setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0 ||
      bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd.get(), 4) != 0) {
    return ListenerFd();
  }
  return fd;
}

uint16_t PortOf(const ListenerFd& fd) {
  sockaddr_in6 a{};
  socklen_t length = sizeof(a);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &length);
  return ntohs(a.sin6_port);
}

// localhost:PORT may lead to ::1 (browsers try it first): the server
// listens there as well, so that no other user can, and serves it as it
// serves 127.0.0.1.
TEST_F(LocalServerTest, TheOtherLoopbackAddressIsHeldAndServed) {
  if (ListenOnV6(0).get() < 0) GTEST_SKIP() << "no ::1 here";
  StartServer();
  EXPECT_EQ(server_->notice(), "");
  std::optional<RawResponse> r = Exchange(
      port_,
      absl::StrCat("GET /api/echo HTTP/1.1\r\nHost: localhost:", port_, "\r\n", Bearer(), "\r\n"),
      /*v6=*/true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(StatusOf(Get("/api/echo")), 401);  // the same rules on both
  EXPECT_EQ(ListenOnV6(port_).get(), -1) << "another program could listen on [::1]:" << port_;
}

// The check of the peer's user holds on ::1 too.
TEST_F(LocalServerTest, AnotherUsersConnectionToTheOtherAddressIsResetToo) {
  if (ListenOnV6(0).get() < 0) GTEST_SKIP() << "no ::1 here";
  LocalServerOptions options;
  options.peer_uid = geteuid() + 1;
  StartServer(options);
  RawHttpClient stranger(port_, /*v6=*/true);
  ASSERT_TRUE(stranger.connected());
  stranger.Write(Get("/index.html"));  // may fail: the reset can come first
  EXPECT_FALSE(stranger.ReadResponse());
}

// Another program on [::1]:PORT would answer for localhost:PORT. On a port
// the caller chose, the server keeps the port but takes neither localhost
// nor [::1] for its own (Host 421, Origin 403), and says why.
TEST_F(LocalServerTest, WhereAnotherProgramHoldsTheOtherAddressLocalhostIsNotOwn) {
  ListenerFd squatter = ListenOnV6(0);
  if (squatter.get() < 0) GTEST_SKIP() << "no ::1 here";
  LocalServerOptions options;
  options.port = PortOf(squatter);
  options.max_header_bytes = 1024;
  StartServer(options);
  ASSERT_EQ(port_, options.port);
  EXPECT_NE(server_->notice().find(absl::StrCat("localhost:", port_, " is not accepted")),
            std::string::npos)
      << server_->notice();
  auto with_host = [&](const std::string& host) {
    return absl::StrCat("GET /api/echo HTTP/1.1\r\nHost: ", host, "\r\n", Bearer(), "\r\n");
  };
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("localhost:", port_))), 421);
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("[::1]:", port_))), 421);
  EXPECT_EQ(StatusOf(with_host(absl::StrCat("127.0.0.1:", port_))), 200);
  EXPECT_EQ(StatusOf(Post(absl::StrCat("Origin: http://localhost:", port_, "\r\n"), "{}")), 403);
  EXPECT_EQ(state_calls_.load(), 0);
  std::optional<RawResponse> r =
      Exchange(port_, Get("/api/echo", Bearer() + "Cookie: a=" + std::string(2000, 'c') + "\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
  EXPECT_NE(r->body.find("clear the browser's cookies for 127.0.0.1, then"), std::string::npos)
      << r->body;
}

// A port the kernel picked whose other address turns out to be taken is
// given up for another one, where the server holds both.
TEST_F(LocalServerTest, APickedPortWhoseOtherAddressIsTakenIsPickedAgain) {
  if (ListenOnV6(0).get() < 0) GTEST_SKIP() << "no ::1 here";
  std::vector<ListenerFd> squatters;
  std::vector<uint16_t> taken;
  LocalServerOptions options;
  options.before_other_bind = [&](uint16_t port) {
    if (!squatters.empty()) return;
    squatters.push_back(ListenOnV6(port));
    taken.push_back(port);
  };
  StartServer(options);
  ASSERT_EQ(taken.size(), 1u);
  ASSERT_GE(squatters[0].get(), 0);
  EXPECT_NE(port_, taken[0]);
  EXPECT_EQ(server_->notice(), "");
  EXPECT_EQ(StatusOf(absl::StrCat("GET /api/echo HTTP/1.1\r\nHost: localhost:", port_, "\r\n",
                                  Bearer(), "\r\n")),
            200);
}

TEST(LoopbackListeners, OnlyAMissingAddressLeavesLocalhostOwn) {
  EXPECT_EQ(ClassifyOtherBindError(EADDRNOTAVAIL, false), OtherAddress::kNobodyCanHoldIt);
  EXPECT_EQ(ClassifyOtherBindError(EAFNOSUPPORT, true), OtherAddress::kNobodyCanHoldIt);
  EXPECT_EQ(ClassifyOtherBindError(EADDRINUSE, true), OtherAddress::kTryAnotherPort);
  EXPECT_EQ(ClassifyOtherBindError(EADDRINUSE, false), OtherAddress::kTaken);
  EXPECT_EQ(ClassifyOtherBindError(EACCES, true), OtherAddress::kTaken);
}

TEST_F(LocalServerTest, CrossSiteOriginOnPostIs403WithoutSideEffect) {
  LocalServerOptions options;
  options.allowed_origins = {"https://client.example"};
  StartServer(options);
  EXPECT_EQ(StatusOf(Post("Origin: https://evil.example\r\n", "{}")), 403);
  EXPECT_EQ(StatusOf(Post("Origin: null\r\n", "{}")), 403);
  EXPECT_EQ(state_calls_.load(), 0);
  EXPECT_EQ(StatusOf(Post(absl::StrCat("Origin: http://127.0.0.1:", port_, "\r\n"), "{}")), 200);
  EXPECT_EQ(StatusOf(Post("Origin: https://client.example\r\n", "{}")), 200);
  EXPECT_EQ(StatusOf(Post("", "{}")), 200);  // not from a browser page
  EXPECT_EQ(state_calls_.load(), 3);
}

TEST_F(LocalServerTest, GetFromAForeignOriginIsAnsweredWithoutCors) {
  StartServer();
  std::optional<RawResponse> r = Exchange(port_, Get("/api/echo", Bearer() + "Origin: https://evil.example\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->headers.count("access-control-allow-origin"), 0u);
}

TEST_F(LocalServerTest, CrossSiteOriginOnUpgradeIs403) {
  StartServer();
  std::string upgrade = absl::StrCat(
      "GET /ws HTTP/1.1\r\nHost: ", Host(), "\r\n", Bearer(),
      "Origin: https://evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  EXPECT_EQ(StatusOf(upgrade), 403);
}

TEST_F(LocalServerTest, SetCookieHelperReachesTheClient) {
  StartServer();
  std::optional<RawResponse> r = Exchange(port_, Post("", "hello"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello");
  EXPECT_EQ(r->headers["set-cookie"], "raw_token=x; HttpOnly; SameSite=Strict; Path=/");
}

TEST_F(LocalServerTest, MalformedRequestIs400) {
  StartServer();
  EXPECT_EQ(StatusOf("GARBAGE\r\n\r\n"), 400);
  EXPECT_EQ(StatusOf("GET /api/echo HTTP/9\r\n\r\n"), 400);
}

TEST_F(LocalServerTest, OversizedHeaderIs431AndNamesTheCookiesToClear) {
  LocalServerOptions options;
  options.max_header_bytes = 1024;
  StartServer(options);
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer() + "X-Pad: " + std::string(2000, 'p') + "\r\n")), 431);
  std::optional<RawResponse> r =
      Exchange(port_, Get("/api/echo", Bearer() + "Cookie: a=" + std::string(2000, 'c') + "\r\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
  EXPECT_NE(r->body.find("clear the browser's cookies for 127.0.0.1 and localhost"),
            std::string::npos)
      << r->body;
}

// A browser sends every cookie of the host, other local servers' too: the
// default limit takes ~24 KB of them beside the session cookie.
TEST_F(LocalServerTest, TheDefaultHeaderLimitTakesWhatBrowsersSend) {
  StartServer();
  std::string cookies;
  for (int i = 0; i < 24; ++i)
    absl::StrAppend(&cookies, "dev", i, "=", std::string(1000, 'c'), "; ");
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: ", cookies, "raw_token_", port_, "=",
                                                   kSessionSecret, "\r\n"))),
            200);
  absl::StrAppend(&cookies, "big=", std::string(10000, 'c'));
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer() + "Cookie: " + cookies + "\r\n")), 431);
}

TEST_F(LocalServerTest, ATossedCookieBeforeTheRealOneStillAdmits) {
  StartServer();
  const std::string name = absl::StrCat("raw_token_", port_);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: ", name, "=junk; ", name, "=",
                                                   kSessionSecret, "\r\n"))),
            200);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: ", name, "=junk\r\n"))), 401);
}

TEST_F(LocalServerTest, OversizedBodyIs413WithoutSideEffect) {
  LocalServerOptions options;
  options.max_body_bytes = 1024;
  StartServer(options);
  EXPECT_EQ(StatusOf(Post("", std::string(1025, 'b'))), 413);
  EXPECT_EQ(StatusOf(Post("", std::string(1024, 'b'))), 200);
  // Chunked: the limit holds while the body streams in.
  std::string chunked = absl::StrCat("POST /api/state HTTP/1.1\r\nHost: ", Host(), "\r\n", Bearer(),
                                     "Transfer-Encoding: chunked\r\n\r\n", "800\r\n", std::string(2048, 'c'),
                                     "\r\n0\r\n\r\n");
  EXPECT_EQ(StatusOf(chunked), 413);
  EXPECT_EQ(state_calls_.load(), 1);
}

TEST_F(LocalServerTest, RequestsBeyondTheRateAre429) {
  LocalServerOptions options;
  options.max_requests_per_window = 3;
  options.rate_window = std::chrono::hours(1);
  StartServer(options);
  RawHttpClient client(port_);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client.Write(Get("/api/echo", Bearer())));
    std::optional<RawResponse> r = client.ReadResponse();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  ASSERT_TRUE(client.Write(Get("/api/echo", Bearer())));
  std::optional<RawResponse> r = client.ReadResponse();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->headers["retry-after"], "3600");
  EXPECT_TRUE(client.WaitForClose());
  // A limit per connection: a new one is served.
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
}

TEST_F(LocalServerTest, SlowHeaderClientIsDropped) {
  LocalServerOptions options;
  options.request_timeout = std::chrono::milliseconds(200);
  StartServer(options);
  RawHttpClient slow(port_);
  ASSERT_TRUE(slow.Write("GET /api/echo HTTP/1.1\r\nHo"));
  EXPECT_TRUE(slow.WaitForClose());
  RawHttpClient idle(port_);
  EXPECT_TRUE(idle.WaitForClose());
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
}

TEST_F(LocalServerTest, ConnectionsBeyondTheLimitAreClosed) {
  LocalServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  RawHttpClient first(port_);
  ASSERT_TRUE(first.Write(Get("/api/echo", Bearer())));
  ASSERT_TRUE(first.ReadResponse());  // accepted and kept alive
  RawHttpClient second(port_);
  ASSERT_TRUE(second.Write(Get("/api/echo", Bearer())));
  ASSERT_TRUE(second.ReadResponse());
  RawHttpClient third(port_);
  EXPECT_TRUE(third.WaitForClose());
}

TEST(LocalServerStart, NeedsTwoConnectionsAtLeast) {
  LocalServerOptions options;
  options.max_connections = 1;
  EXPECT_EQ(LocalServer::Start(options, {}).status().code(), absl::StatusCode::kInvalidArgument);
}

// Sockets that never send a valid token (idle, or stalled mid-header) fill
// at most max_unadmitted_connections slots, the oldest giving way to a new
// connection, so they cannot lock out a client with the token; and a
// connection that has shown the token keeps its slot.
TEST_F(LocalServerTest, IdleConnectionsWithoutTheTokenCannotLockOutOneWithIt) {
  LocalServerOptions options;
  options.max_connections = 6;
  options.max_unadmitted_connections = 3;
  // No socket times out here: only the limit on unadmitted ones frees slots.
  options.request_timeout = std::chrono::seconds(60);
  options.unadmitted_request_timeout = std::chrono::seconds(60);
  StartServer(options);
  RawHttpClient holder(port_);
  ASSERT_TRUE(holder.Write(Get("/api/echo", Bearer())));
  ASSERT_TRUE(holder.ReadResponse());  // admitted and kept alive
  std::vector<std::unique_ptr<RawHttpClient>> idle;
  for (int i = 0; i < 8; ++i) {
    idle.push_back(std::make_unique<RawHttpClient>(port_));
    ASSERT_TRUE(idle.back()->Write("GET /api/echo HTTP/1.1\r\n"));
  }
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  // The oldest idle one was closed to make room.
  EXPECT_TRUE(idle.front()->WaitForClose());
  ASSERT_TRUE(holder.Write(Get("/api/echo", Bearer())));
  std::optional<RawResponse> again = holder.ReadResponse();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

// Opens `count` connections that send half a request header and stop.
std::vector<std::unique_ptr<RawHttpClient>> OpenIdle(uint16_t port, int count) {
  std::vector<std::unique_ptr<RawHttpClient>> idle;
  for (int i = 0; i < count; ++i) {
    idle.push_back(std::make_unique<RawHttpClient>(port));
    EXPECT_TRUE(idle.back()->Write("GET /api/echo HTTP/1.1\r\n"));
  }
  return idle;
}

// Every slot taken, by one admitted connection and idle ones without the
// token (raw-acp's 16 and 16 in small): a client with the token still gets
// in, in the place of the oldest idle socket.
TEST_F(LocalServerTest, AFullServerClosesTheOldestUnadmittedForOneWithTheToken) {
  LocalServerOptions options;
  options.max_connections = 4;
  options.max_unadmitted_connections = 4;  // kept below max_connections
  options.request_timeout = std::chrono::seconds(60);
  options.unadmitted_request_timeout = std::chrono::seconds(60);
  StartServer(options);
  RawHttpClient holder(port_);
  ASSERT_TRUE(holder.Write(Get("/api/echo", Bearer())));
  ASSERT_TRUE(holder.ReadResponse());
  std::vector<std::unique_ptr<RawHttpClient>> idle = OpenIdle(port_, 3);
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  EXPECT_TRUE(idle.front()->WaitForClose());
  ASSERT_TRUE(holder.Write(Get("/api/echo", Bearer())));
  std::optional<RawResponse> again = holder.ReadResponse();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

// The total limit reached before the one on unadmitted connections: the
// oldest of those still makes room.
TEST_F(LocalServerTest, TheTotalLimitAlsoClosesTheOldestUnadmitted) {
  LocalServerOptions options;
  options.max_connections = 4;
  options.max_unadmitted_connections = 3;
  options.request_timeout = std::chrono::seconds(60);
  options.unadmitted_request_timeout = std::chrono::seconds(60);
  StartServer(options);
  std::vector<std::unique_ptr<RawHttpClient>> holders;
  for (int i = 0; i < 2; ++i) {
    holders.push_back(std::make_unique<RawHttpClient>(port_));
    ASSERT_TRUE(holders.back()->Write(Get("/api/echo", Bearer())));
    ASSERT_TRUE(holders.back()->ReadResponse());
  }
  std::vector<std::unique_ptr<RawHttpClient>> idle = OpenIdle(port_, 2);
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  EXPECT_TRUE(idle.front()->WaitForClose());
}

// At most max_connections - 1 sockets without the token are kept, whatever
// the option says.
TEST_F(LocalServerTest, OneSlotIsAlwaysLeftToAdmittedConnections) {
  LocalServerOptions options;
  options.max_connections = 3;
  options.max_unadmitted_connections = 16;
  // Only the limit can close the first socket while the test runs.
  options.request_timeout = std::chrono::hours(1);
  options.unadmitted_request_timeout = std::chrono::hours(1);
  StartServer(options);
  std::vector<std::unique_ptr<RawHttpClient>> idle = OpenIdle(port_, 3);
  EXPECT_TRUE(idle.front()->WaitForClose());
}

// A public route does not need the token, but a request that carries the
// session cookie (or the token) admits its connection there too; one
// without stays unadmitted, and a wrong cookie is still served the page.
TEST_F(LocalServerTest, TheSessionCookieOnAPublicRouteAdmitsTheConnection) {
  LocalServerOptions options;
  options.max_connections = 6;
  options.max_unadmitted_connections = 2;
  options.request_timeout = std::chrono::seconds(60);
  options.unadmitted_request_timeout = std::chrono::seconds(60);
  StartServer(options);
  const std::string cookie = absl::StrCat("Cookie: raw_token_", port_, "=", kSessionSecret, "\r\n");
  RawHttpClient page(port_);
  ASSERT_TRUE(page.Write(Get("/index.html", cookie)));
  std::optional<RawResponse> first = page.ReadResponse();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  RawHttpClient anonymous(port_);
  ASSERT_TRUE(anonymous.Write(Get("/index.html")));
  ASSERT_TRUE(anonymous.ReadResponse());
  EXPECT_EQ(StatusOf(Get("/index.html", absl::StrCat("Cookie: raw_token_", port_, "=wrong\r\n"))),
            200);
  std::vector<std::unique_ptr<RawHttpClient>> idle = OpenIdle(port_, 3);
  EXPECT_TRUE(anonymous.WaitForClose());
  ASSERT_TRUE(page.Write(Get("/index.html", cookie)));
  std::optional<RawResponse> again = page.ReadResponse();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

// A connection whose far end is another user's socket is reset before it
// is read. Here the server is told to serve another user only, so this
// process's own connections stand for a stranger's.
TEST_F(LocalServerTest, AnotherUsersConnectionIsResetAtOnce) {
  LocalServerOptions options;
  options.peer_uid = geteuid() + 1;
  StartServer(options);
  RawHttpClient stranger(port_);
  ASSERT_TRUE(stranger.connected());
  stranger.Write(Get("/index.html"));  // may fail: the reset can come first
  EXPECT_FALSE(stranger.ReadResponse());
}

// The real thing, where the test may change users: a child process as
// `nobody` floods the port while a connection of this user waits without
// the token (a browser loading the page). None of the stranger's sockets is
// served or takes a slot, so the waiting one is not closed to make room.
TEST_F(LocalServerTest, AnotherUsersFloodNeitherGetsInNorPushesOut) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
  LocalServerOptions options;
  options.max_connections = 4;
  options.max_unadmitted_connections = 2;
  options.request_timeout = std::chrono::seconds(60);
  options.unadmitted_request_timeout = std::chrono::seconds(60);
  StartServer(options);
  RawHttpClient browser(port_);
  ASSERT_TRUE(browser.Write("GET /index.html HTTP/1.1\r\n"));
  constexpr int kStrangerConnections = 20;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only system calls from here on: other threads' locks stay behind.
    constexpr long kNobody = 65534;
    if (syscall(SYS_setresgid, kNobody, kNobody, kNobody) != 0 ||
        syscall(SYS_setresuid, kNobody, kNobody, kNobody) != 0) {
      _exit(100);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port_);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int refused = 0;
    for (int i = 0; i < kStrangerConnections; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) _exit(101);
      timeval wait{.tv_sec = 10, .tv_usec = 0};  // a served socket would wait 60 s
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
      if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) _exit(102);
      char byte;
      const ssize_t n = read(fd, &byte, 1);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) ++refused;
      close(fd);
    }
    _exit(refused);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kStrangerConnections);
  ASSERT_TRUE(browser.Write(absl::StrCat("Host: ", Host(), "\r\n\r\n")));
  std::optional<RawResponse> page = browser.ReadResponse();
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
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

TEST_F(LocalServerTest, WebSocketFactoryReturningNullClosesWith1011) {
  StartServer();
  testing::WsConnectOptions options;
  options.port = port_;
  options.target = "/ws";
  options.headers = {{"Authorization", "Bearer " + server_->token()}};
  auto client = testing::WsTestClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 1011);
}

// Frames queued while earlier ones are still being written go out
// together; each still arrives whole, in order, before the close frame.
TEST_F(LocalServerTest, ABurstOfFramesArrivesInOrderBeforeTheClose) {
  StartServer();
  testing::WsConnectOptions options;
  options.port = port_;
  options.target = "/burst";
  options.headers = {{"Authorization", "Bearer " + server_->token()}};
  auto client = testing::WsTestClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  for (int i = 0; i < kBurstFrames; ++i) {
    absl::StatusOr<std::string> frame = (*client)->Read();
    ASSERT_TRUE(frame.ok()) << i << ": " << frame.status();
    ASSERT_EQ(*frame, absl::StrCat(i));
  }
  EXPECT_FALSE((*client)->Read().ok());
  EXPECT_EQ((*client)->close_code(), 4000);
}

ExtendableFrame Piece(const std::string& kind, const std::string& piece, const std::string& tag) {
  return ExtendableFrame{kind, piece, [kind, tag](std::string_view pieces) {
                           return absl::StrCat(kind, tag, ":", std::string(pieces));
                         }};
}

// Extendable frames that wait behind a frame being written join the last
// waiting frame of their kind, rendered with the latest render; a plain
// frame or another kind between them keeps them apart, and the order holds.
// The first frame is larger than the loopback socket's buffers and the
// client reads nothing until every frame was sent, so it is still being
// written while the others queue, whatever the timing.
TEST_F(LocalServerTest, ExtendableFramesQueuedBehindAWriteLeaveJoined) {
  StartServer();
  testing::WsConnectOptions options;
  options.port = port_;
  options.target = "/hand-over";
  options.headers = {{"Authorization", "Bearer " + server_->token()}};
  auto client = testing::WsTestClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  opened_.WaitForNotification();
  const std::string big(48 * 1024 * 1024, 'x');
  ASSERT_TRUE(handed_over_->Send(big));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "1", "#1")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "2", "#2")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "3", "#3")));
  ASSERT_TRUE(handed_over_->Send("plain"));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("a", "4", "#4")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("b", "5", "#5")));
  ASSERT_TRUE(handed_over_->SendExtendable(Piece("b", "6", "#6")));
  handed_over_->Close(4000, "done");

  absl::StatusOr<std::string> first = (*client)->Read();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), big.size());
  std::vector<std::string> rest;
  for (absl::StatusOr<std::string> f = (*client)->Read(); f.ok(); f = (*client)->Read()) rest.push_back(*f);
  EXPECT_EQ(rest, (std::vector<std::string>{"a#3:123", "plain", "a#4:4", "b#6:56"}));
  EXPECT_EQ((*client)->close_code(), 4000);
}

// A peer that reads nothing: once more than max_websocket_queued_bytes wait
// to be written, the socket is dropped (the frames after that point never
// arrive, nor does the close frame).
TEST_F(LocalServerTest, OutputLeftUnreadPastTheLimitDropsTheSocket) {
  LocalServerOptions server_options;
  server_options.max_websocket_queued_bytes = 1024 * 1024;
  StartServer(server_options);
  testing::WsConnectOptions options;
  options.port = port_;
  options.target = "/hand-over";
  options.headers = {{"Authorization", "Bearer " + server_->token()}};
  auto client = testing::WsTestClient::Connect(options);
  ASSERT_TRUE(client.ok()) << client.status();
  opened_.WaitForNotification();
  // 32 MiB: more than the loopback socket's buffers and the limit together.
  constexpr int kFrames = 512;
  const std::string frame(64 * 1024, 'x');
  for (int i = 0; i < kFrames; ++i) handed_over_->Send(frame);
  handed_over_->Close(4000, "done");
  int read = 0;
  while ((*client)->Read().ok()) ++read;
  EXPECT_LT(read, kFrames);
  EXPECT_EQ((*client)->close_code(), 0);
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
