// LocalServer's limits: malformed and oversized requests, the request
// rate, slow clients, and the connection slots, of which sockets without
// the token cannot take the last from a client with it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/web/local_server.h"
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

// Connection limits, with both request timeouts set to `timeout` (so that
// only the limits close sockets while a test runs).
LocalServerOptions ConnectionLimitOptions(int max_connections, int max_unadmitted,
                                          std::chrono::milliseconds timeout) {
  LocalServerOptions options;
  options.max_connections = max_connections;
  options.max_unadmitted_connections = max_unadmitted;
  options.request_timeout = timeout;
  options.unadmitted_request_timeout = timeout;
  return options;
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
  EXPECT_EQ(StatusOf(Get("/api/echo", Bearer() + "X-Pad: " + std::string(2000, 'p') + "\r\n")),
            431);
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

TEST_F(LocalServerTest, OversizedBodyIs413WithoutSideEffect) {
  LocalServerOptions options;
  options.max_body_bytes = 1024;
  StartServer(options);
  EXPECT_EQ(StatusOf(Post("", std::string(1025, 'b'))), 413);
  EXPECT_EQ(StatusOf(Post("", std::string(1024, 'b'))), 200);
  // Chunked: the limit holds while the body streams in.
  std::string chunked = absl::StrCat("POST /api/state HTTP/1.1\r\nHost: ", Host(), "\r\n", Bearer(),
                                     "Transfer-Encoding: chunked\r\n\r\n", "800\r\n",
                                     std::string(2048, 'c'), "\r\n0\r\n\r\n");
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

// Sockets that never send a valid token (idle, or stalled mid-header) fill
// at most max_unadmitted_connections slots, the oldest giving way to a new
// connection, so they cannot lock out a client with the token; and a
// connection that has shown the token keeps its slot.
TEST_F(LocalServerTest, IdleConnectionsWithoutTheTokenCannotLockOutOneWithIt) {
  // No socket times out here: only the limit on unadmitted ones frees slots.
  LocalServerOptions options = ConnectionLimitOptions(6, 3, std::chrono::seconds(60));
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
  // An unadmitted limit of 4 is kept below max_connections (one slot is left).
  LocalServerOptions options = ConnectionLimitOptions(4, 4, std::chrono::seconds(60));
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
  LocalServerOptions options = ConnectionLimitOptions(4, 3, std::chrono::seconds(60));
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
  // Only the limit can close the first socket while the test runs.
  LocalServerOptions options = ConnectionLimitOptions(3, 16, std::chrono::hours(1));
  StartServer(options);
  std::vector<std::unique_ptr<RawHttpClient>> idle = OpenIdle(port_, 3);
  EXPECT_TRUE(idle.front()->WaitForClose());
}

// A public route does not need the token, but a request that carries the
// session cookie (or the token) admits its connection there too; one
// without stays unadmitted, and a wrong cookie is still served the page.
TEST_F(LocalServerTest, TheSessionCookieOnAPublicRouteAdmitsTheConnection) {
  LocalServerOptions options = ConnectionLimitOptions(6, 2, std::chrono::seconds(60));
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

}  // namespace
}  // namespace raw::web
