// Which user owns a TCP socket of this machine, above all the far end of a
// connection to a loopback listener. Both ends of a connection to 127.0.0.1
// or ::1 are sockets of this network namespace, so the kernel knows the
// peer's socket and the user it belongs to (the one whose process created
// it). LocalServer refuses a connection whose peer belongs to another user
// (local_server.h).
//
// The kernel is asked through NETLINK_SOCK_DIAG (inet_diag: an exact lookup
// of one socket by its addresses and ports, as cheap under a flood of
// connections as for one); where that interface cannot be used, through
// /proc/net/tcp and /proc/net/tcp6 (the `uid` column; a scan of every TCP
// socket of the namespace). Linux only.
//
// Thread-safe: every call opens what it needs and closes it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::web {

struct TcpEndpoint {
  int family = 0;                     // AF_INET or AF_INET6
  std::array<uint8_t, 16> address{};  // network byte order; AF_INET uses the first 4
  uint16_t port = 0;                  // host byte order
};

// One TCP socket, by its own address and port and those of its peer (all
// zero, of the same family, for a listening socket).
struct TcpSocketId {
  TcpEndpoint local;
  TcpEndpoint remote;
};

// The uid of the socket `id` in `table`, the text of /proc/net/tcp (for an
// AF_INET id) or /proc/net/tcp6 (AF_INET6): the row whose local_address is
// id.local and rem_address id.remote. Rows in TIME_WAIT or SYN_RECV belong
// to no process (the kernel shows uid 0) and never match. nullopt when no
// row matches; lines that do not parse are skipped.
std::optional<uint32_t> FindOwnerInProcNetTcp(std::string_view table, const TcpSocketId& id);

// The owner of `id` by NETLINK_SOCK_DIAG. kNotFound when the kernel has no
// such socket (or only one in TIME_WAIT or SYN_RECV); kUnavailable when the
// interface cannot be used here.
absl::StatusOr<uint32_t> SockDiagOwner(const TcpSocketId& id);

// The owner of `id` from /proc/net/tcp, else /proc/net/tcp6 (where an IPv4
// connection of an IPv6 socket is listed, with v4-mapped addresses).
// kNotFound, or kUnavailable when neither file can be read.
absl::StatusOr<uint32_t> ProcNetTcpOwner(const TcpSocketId& id);

// SockDiagOwner, or ProcNetTcpOwner when netlink is unavailable.
absl::StatusOr<uint32_t> TcpSocketOwner(const TcpSocketId& id);

// The owner of the socket at the far end of connected TCP socket `fd`.
absl::StatusOr<uint32_t> PeerOwner(int fd);

// The owner of listening TCP socket `fd`: a lookup that must work before
// PeerOwner can be relied on.
absl::StatusOr<uint32_t> ListenerOwner(int fd);

}  // namespace raw::web
