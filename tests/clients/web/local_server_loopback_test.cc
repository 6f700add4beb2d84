// LocalServer on both loopback addresses: localhost:PORT may lead to ::1,
// so the server holds [::1]:PORT too, and where another program holds it,
// takes neither localhost nor [::1] for its own.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/web/local_server.h"
#include "clients/web/loopback_listeners.h"
#include "gtest/gtest.h"
#include "tests/clients/web/local_server_fixture.h"
#include "tests/clients/web/support/raw_http_client.h"

namespace raw::web {
namespace {

using testing::Exchange;
using testing::LocalServerTest;
using testing::RawHttpClient;
using testing::RawResponse;

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

}  // namespace
}  // namespace raw::web
