// POST /api/login drops the session cookies of gateways that have gone, so
// that they do not pile up on 127.0.0.1 run after run, and keeps those of
// gateways that may still run (their tabs stay signed in).
#include "clients/dashboard/stale_cookies.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/dashboard/api_routes.h"
#include "clients/dashboard/gateway.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

using ::testing::ElementsAre;

constexpr char kLoginToken[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
constexpr char kLoginSecret[] = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
constexpr uint16_t kOwnPort = 40123;

// A TCP socket of this process bound to 127.0.0.1 at a port the kernel
// picks; listening when `listening` (a gateway that runs), else only
// holding the port so that nothing listens there (a gateway gone).
class LoopbackSocket {
 public:
  explicit LoopbackSocket(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(a);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    if (listening) {
      EXPECT_EQ(listen(fd_, 1), 0);
    }
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &length), 0);
    port_ = ntohs(a.sin_port);
  }
  ~LoopbackSocket() { close(fd_); }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// The Set-Cookie values of POST /api/login with the token and `cookies`.
std::vector<std::string> LoginSetCookies(const std::string& cookies) {
  auto gateway = std::make_shared<Gateway>();
  gateway->token = kLoginToken;
  gateway->session_secret = kLoginSecret;
  for (const web::HttpRoute& route : DashboardRoutes(gateway).http) {
    if (route.method != "POST" || route.path != "/api/login") continue;
    web::Request request;
    request.method = "POST";
    request.path = request.target = "/api/login";
    request.headers.emplace_back("authorization", absl::StrCat("Bearer ", kLoginToken));
    request.headers.emplace_back("cookie", cookies);
    request.local_port = kOwnPort;
    std::vector<std::string> set_cookies;
    route.handler(request, [&set_cookies](web::Response response) {
      EXPECT_EQ(response.status, 204);
      for (const auto& [name, value] : response.headers) {
        if (name == "Set-Cookie") set_cookies.push_back(value);
      }
    });
    return set_cookies;
  }
  ADD_FAILURE() << "no POST /api/login";
  return {};
}

TEST(StaleSessionCookies, LoginDropsTheCookiesOfGatewaysGoneOnly) {
  LoopbackSocket running(/*listening=*/true);
  LoopbackSocket gone(/*listening=*/false);
  const std::string gone_name = absl::StrCat("raw_dashboard_", gone.port());
  const std::string cookies =
      absl::StrCat(gone_name, "=a; jupyter=b; raw_dashboard_", running.port(), "=c; raw_dashboard_",
                   kOwnPort, "=d; raw_dashboard_0", gone.port(),
                   "=e; raw_dashboard_x=f; raw_dashboard_70000=g; ", gone_name, "=h");
  EXPECT_THAT(
      LoginSetCookies(cookies),
      ElementsAre(absl::StrCat("raw_dashboard_", kOwnPort, "=", kLoginSecret,
                               "; HttpOnly; SameSite=Strict; Path=/"),
                  absl::StrCat(gone_name, "=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/")));
}

// Only a port where a gateway may run keeps its cookie (the own one aside).
TEST(StaleSessionCookies, TheCookiesOfGatewaysThatMayRunAreKept) {
  web::Request request;
  request.headers.emplace_back("cookie", "raw_dashboard_1=a; raw_dashboard_2=b");
  EXPECT_THAT(StaleSessionCookieDeletions(request, "raw_dashboard", 9,
                                          [](uint16_t port) { return port == 2; }),
              ElementsAre("raw_dashboard_1=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/"));
  EXPECT_TRUE(StaleSessionCookieDeletions(request, "raw_dashboard", 1, [](uint16_t) {
                return true;
              }).empty());
}

}  // namespace
}  // namespace raw::dashboard
