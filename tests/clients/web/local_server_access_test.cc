// Who LocalServer serves: the token in a header or the query, the session
// secret in the port's own cookie, its own Host and Origin only, and this
// user's connections only; hostile requests written byte for byte.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/web/local_server.h"
#include "gtest/gtest.h"
#include "tests/clients/web/local_server_fixture.h"
#include "tests/clients/web/support/raw_http_client.h"
#include "tests/clients/web/support/ws_test_client.h"

namespace raw::web {
namespace {

using testing::Exchange;
using testing::kSessionSecret;
using testing::LocalServerTest;
using testing::RawHttpClient;
using testing::RawResponse;

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

// With query tokens off, `?token=` with the right token is refused, on
// an API route and on a WebSocket upgrade; the header still admits.
TEST_F(LocalServerTest, QueryTokenRefusedWhenTurnedOff) {
  LocalServerOptions options;
  options.query_token = false;
  StartServer(options);
  EXPECT_EQ(StatusOf(Get("/api/echo?token=" + server_->token())), 401);
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer())), 200);
  testing::WsConnectOptions ws;
  ws.port = port_;
  ws.target = "/hand-over?token=" + server_->token();
  testing::WsTestClient::Refused refused;
  EXPECT_FALSE(testing::WsTestClient::Connect(ws, &refused).ok());
  EXPECT_EQ(refused.status, 401);
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
  std::optional<RawResponse> r =
      Exchange(port_, Get("/api/echo", Bearer() + "Origin: https://evil.example\r\n"));
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

TEST_F(LocalServerTest, ATossedCookieBeforeTheRealOneStillAdmits) {
  StartServer();
  const std::string name = absl::StrCat("raw_token_", port_);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: ", name, "=junk; ", name, "=",
                                                   kSessionSecret, "\r\n"))),
            200);
  EXPECT_EQ(StatusOf(Get("/api/echo", absl::StrCat("Cookie: ", name, "=junk\r\n"))), 401);
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

}  // namespace
}  // namespace raw::web
