// peer_owner: rows of /proc/net/tcp and tcp6 as the kernel prints them, and
// lookups of real loopback connections of this process.
#include "clients/web/peer_owner.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace raw::web {
namespace {

TcpEndpoint V4(const char* address, uint16_t port) {
  TcpEndpoint endpoint;
  endpoint.family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, address, endpoint.address.data()), 1) << address;
  endpoint.port = port;
  return endpoint;
}

TcpEndpoint V6(const char* address, uint16_t port) {
  TcpEndpoint endpoint;
  endpoint.family = AF_INET6;
  EXPECT_EQ(inet_pton(AF_INET6, address, endpoint.address.data()), 1) << address;
  endpoint.port = port;
  return endpoint;
}

// Copied from a little-endian machine: a listener on 127.0.0.1:8080 (uid
// 1000), a browser's socket 127.0.0.1:51234 -> :8080 (uid 1000), the
// gateway's end of it, another user's socket 127.0.0.1:51240 -> :8080
// (uid 1001), and a closed connection in TIME_WAIT (uid 0).
constexpr char kTcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "41234 1 0000000000000000 100 0 0 10 0\n"
    "   1: 0100007F:C822 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "41240 1 0000000000000000 20 4 30 10 -1\n"
    "   2: 0100007F:1F90 0100007F:C822 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "41241 1 0000000000000000 20 4 30 10 -1\n"
    "   3: 0100007F:C828 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 "
    "41250 1 0000000000000000 20 4 30 10 -1\n"
    "   4: 0100007F:C830 0100007F:1F90 06 00000000:00000000 03:00001770 00000000     0        0 "
    "0 3 0000000000000000\n";

// ::1 and an IPv6 socket connected to 127.0.0.1 (v4-mapped addresses).
constexpr char kTcp6[] =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:C900 00000000000000000000000001000000:1F90 01 "
    "00000000:00000000 00:00000000 00000000  1002        0 51000 1 0000000000000000 20 4 30 10 "
    "-1\n"
    "   1: 0000000000000000FFFF00000100007F:C902 0000000000000000FFFF00000100007F:1F90 01 "
    "00000000:00000000 00:00000000 00000000  1003        0 51001 1 0000000000000000 20 4 30 10 "
    "-1\n";

TEST(FindOwnerInProcNetTcp, FindsTheRowOfTheSocketByBothEnds) {
  if constexpr (std::endian::native != std::endian::little) GTEST_SKIP() << "little-endian rows";
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 51234), V4("127.0.0.1", 8080)}), 1000u);
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 51240), V4("127.0.0.1", 8080)}), 1001u);
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 8080), V4("0.0.0.0", 0)}), 1000u);
  // The other end of a connection is another row.
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 8080), V4("127.0.0.1", 51234)}), 1000u);
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 8080), V4("127.0.0.1", 51240)}),
            std::nullopt);
  // No such socket: a port, an address or a family that differs.
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 51235), V4("127.0.0.1", 8080)}),
            std::nullopt);
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.2", 51234), V4("127.0.0.1", 8080)}),
            std::nullopt);
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V6("::1", 51234), V6("::1", 8080)}), std::nullopt);
}

TEST(FindOwnerInProcNetTcp, ARowInTimeWaitBelongsToNobody) {
  if constexpr (std::endian::native != std::endian::little) GTEST_SKIP() << "little-endian rows";
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp, {V4("127.0.0.1", 51248), V4("127.0.0.1", 8080)}),
            std::nullopt);
}

TEST(FindOwnerInProcNetTcp, ReadsIpv6RowsAndV4MappedOnes) {
  if constexpr (std::endian::native != std::endian::little) GTEST_SKIP() << "little-endian rows";
  EXPECT_EQ(FindOwnerInProcNetTcp(kTcp6, {V6("::1", 51456), V6("::1", 8080)}), 1002u);
  EXPECT_EQ(
      FindOwnerInProcNetTcp(kTcp6, {V6("::ffff:127.0.0.1", 51458), V6("::ffff:127.0.0.1", 8080)}),
      1003u);
}

TEST(FindOwnerInProcNetTcp, SkipsWhatDoesNotParse) {
  const TcpSocketId id{V4("127.0.0.1", 51234), V4("127.0.0.1", 8080)};
  EXPECT_EQ(FindOwnerInProcNetTcp("", id), std::nullopt);
  EXPECT_EQ(FindOwnerInProcNetTcp("garbage\n\n   1: 0100007F:C822\n", id), std::nullopt);
  EXPECT_EQ(FindOwnerInProcNetTcp("   1: 0100007F:C822 0100007F:1F90 01 0:0 0:0 0 -5 0 1\n", id),
            std::nullopt);
  EXPECT_EQ(FindOwnerInProcNetTcp("   1: 0100007G:C822 0100007F:1F90 01 0:0 0:0 0 5 0 1\n", id),
            std::nullopt);
}

// A listener and a connection to it, all of this process.
class LoopbackPair {
 public:
  explicit LoopbackPair(int family) {
    listener_ = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_storage address{};
    socklen_t length;
    if (family == AF_INET) {
      auto& in = reinterpret_cast<sockaddr_in&>(address);
      in.sin_family = AF_INET;
      in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      length = sizeof(in);
    } else {
      auto& in6 = reinterpret_cast<sockaddr_in6&>(address);
      in6.sin6_family = AF_INET6;
      in6.sin6_addr = in6addr_loopback;
      length = sizeof(in6);
    }
    ok_ = bind(listener_, reinterpret_cast<sockaddr*>(&address), length) == 0 &&
          listen(listener_, 4) == 0 &&
          getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    client_ = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ok_ = ok_ && connect(client_, reinterpret_cast<sockaddr*>(&address), length) == 0;
    Accept();
  }
  // An IPv6 socket connected to an IPv4 listener on 127.0.0.1, as a
  // dual-stack client connects: its addresses are v4-mapped.
  static LoopbackPair DualStackClient() {
    LoopbackPair pair(AF_INET);
    close(pair.accepted_);
    close(pair.client_);
    sockaddr_in listener{};
    socklen_t length = sizeof(listener);
    getsockname(pair.listener_, reinterpret_cast<sockaddr*>(&listener), &length);
    sockaddr_in6 mapped{};
    mapped.sin6_family = AF_INET6;
    mapped.sin6_port = listener.sin_port;
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped.sin6_addr);
    pair.client_ = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    pair.ok_ = pair.ok_ &&
               connect(pair.client_, reinterpret_cast<sockaddr*>(&mapped), sizeof(mapped)) == 0;
    pair.Accept();
    return pair;
  }
  LoopbackPair(LoopbackPair&& other) noexcept
      : listener_(std::exchange(other.listener_, -1)),
        client_(std::exchange(other.client_, -1)),
        accepted_(std::exchange(other.accepted_, -1)),
        ok_(other.ok_) {}
  ~LoopbackPair() {
    for (int fd : {accepted_, client_, listener_}) {
      if (fd >= 0) close(fd);
    }
  }
  bool ok() const { return ok_; }
  int listener() const { return listener_; }
  int accepted() const { return accepted_; }

 private:
  void Accept() {
    accepted_ = ok_ ? accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC) : -1;
    ok_ = ok_ && accepted_ >= 0;
  }

  int listener_ = -1;
  int client_ = -1;
  int accepted_ = -1;
  bool ok_ = false;
};

// The client's socket of an IPv4 connection, as seen from its accepted end.
TcpSocketId ClientOf(int accepted) {
  sockaddr_in own{}, peer{};
  socklen_t length = sizeof(own);
  EXPECT_EQ(getsockname(accepted, reinterpret_cast<sockaddr*>(&own), &length), 0);
  length = sizeof(peer);
  EXPECT_EQ(getpeername(accepted, reinterpret_cast<sockaddr*>(&peer), &length), 0);
  return TcpSocketId{V4("127.0.0.1", ntohs(peer.sin_port)), V4("127.0.0.1", ntohs(own.sin_port))};
}

TEST(PeerOwner, ThisProcessOwnsBothEndsOfItsOwnConnection) {
  LoopbackPair pair(AF_INET);
  ASSERT_TRUE(pair.ok()) << std::strerror(errno);
  absl::StatusOr<uint32_t> peer = PeerOwner(pair.accepted());
  ASSERT_TRUE(peer.ok()) << peer.status();
  EXPECT_EQ(*peer, geteuid());
  absl::StatusOr<uint32_t> listener = ListenerOwner(pair.listener());
  ASSERT_TRUE(listener.ok()) << listener.status();
  EXPECT_EQ(*listener, geteuid());
}

TEST(PeerOwner, ADualStackClientOf127001IsFound) {
  LoopbackPair pair = LoopbackPair::DualStackClient();
  if (!pair.ok()) GTEST_SKIP() << "no IPv6 sockets here";
  absl::StatusOr<uint32_t> peer = PeerOwner(pair.accepted());
  ASSERT_TRUE(peer.ok()) << peer.status();
  EXPECT_EQ(*peer, geteuid());
  // /proc lists it in tcp6, with v4-mapped addresses.
  absl::StatusOr<uint32_t> from_proc = ProcNetTcpOwner(ClientOf(pair.accepted()));
  ASSERT_TRUE(from_proc.ok()) << from_proc.status();
  EXPECT_EQ(*from_proc, geteuid());
}

TEST(PeerOwner, OverIpv6Too) {
  LoopbackPair pair(AF_INET6);
  if (!pair.ok()) GTEST_SKIP() << "no ::1 here";
  absl::StatusOr<uint32_t> peer = PeerOwner(pair.accepted());
  ASSERT_TRUE(peer.ok()) << peer.status();
  EXPECT_EQ(*peer, geteuid());
}

// Both ways of asking agree on a live connection; an unknown one is not
// found (never taken for someone's).
TEST(PeerOwner, NetlinkAndProcAgree) {
  LoopbackPair pair(AF_INET);
  ASSERT_TRUE(pair.ok()) << std::strerror(errno);
  const TcpSocketId client = ClientOf(pair.accepted());
  absl::StatusOr<uint32_t> from_proc = ProcNetTcpOwner(client);
  ASSERT_TRUE(from_proc.ok()) << from_proc.status();
  EXPECT_EQ(*from_proc, geteuid());
  absl::StatusOr<uint32_t> from_netlink = SockDiagOwner(client);
  if (absl::IsUnavailable(from_netlink.status())) GTEST_SKIP() << from_netlink.status();
  ASSERT_TRUE(from_netlink.ok()) << from_netlink.status();
  EXPECT_EQ(*from_netlink, geteuid());

  TcpSocketId unknown = client;
  unknown.remote.port = static_cast<uint16_t>(unknown.remote.port + 1);
  EXPECT_TRUE(absl::IsNotFound(SockDiagOwner(unknown).status()));
  EXPECT_TRUE(absl::IsNotFound(ProcNetTcpOwner(unknown).status()));
}

}  // namespace
}  // namespace raw::web
