#include "clients/web/peer_owner.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/proc_file.h"

namespace raw::web {
namespace {

// TCP states (include/net/tcp_states.h) of rows that belong to no process:
// the kernel reports uid 0 for them.
constexpr int kSynRecv = 3;
constexpr int kTimeWait = 6;

std::optional<uint32_t> ParseHex(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  uint32_t value = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    value = value << 4 | static_cast<uint32_t>(digit);
  }
  return value;
}

// The st column of a row that belongs to a process.
bool OwnedState(std::string_view text) {
  const std::optional<uint32_t> state = text.size() == 2 ? ParseHex(text) : std::nullopt;
  return state.has_value() && state.value() != kSynRecv && state.value() != kTimeWait;
}

// "0100007F:1F90" or 32 hex digits and a port. The kernel prints each
// 32-bit word of the address as the integer it is in memory, so reading it
// back as a native integer and copying its bytes gives the address in
// network order on any host.
std::optional<TcpEndpoint> ParseEndpoint(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view hex = text.substr(0, colon);
  if (hex.size() != 8 && hex.size() != 32) return std::nullopt;
  TcpEndpoint endpoint;
  endpoint.family = hex.size() == 8 ? AF_INET : AF_INET6;
  for (size_t word = 0; word * 8 < hex.size(); ++word) {
    std::optional<uint32_t> value = ParseHex(hex.substr(word * 8, 8));
    if (!value) return std::nullopt;
    std::memcpy(endpoint.address.data() + word * 4, &*value, 4);
  }
  const std::string_view port_hex = text.substr(colon + 1);
  std::optional<uint32_t> port = port_hex.size() == 4 ? ParseHex(port_hex) : std::nullopt;
  if (!port) return std::nullopt;
  endpoint.port = static_cast<uint16_t>(*port);
  return endpoint;
}

bool SameEndpoint(const TcpEndpoint& a, const TcpEndpoint& b) {
  const size_t bytes = a.family == AF_INET ? 4 : 16;
  return a.family == b.family && a.port == b.port &&
         std::memcmp(a.address.data(), b.address.data(), bytes) == 0;
}

// ::ffff:a.b.c.d for an IPv4 endpoint.
TcpEndpoint V4Mapped(const TcpEndpoint& v4) {
  TcpEndpoint mapped;
  mapped.family = AF_INET6;
  mapped.address[10] = 0xff;
  mapped.address[11] = 0xff;
  std::memcpy(mapped.address.data() + 12, v4.address.data(), 4);
  mapped.port = v4.port;
  return mapped;
}

absl::StatusOr<TcpEndpoint> EndpointOf(const sockaddr_storage& address) {
  TcpEndpoint endpoint;
  if (address.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(address);
    endpoint.family = AF_INET;
    std::memcpy(endpoint.address.data(), &in.sin_addr, 4);
    endpoint.port = ntohs(in.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(address);
    endpoint.family = AF_INET6;
    std::memcpy(endpoint.address.data(), &in6.sin6_addr, 16);
    endpoint.port = ntohs(in6.sin6_port);
  } else {
    return absl::InvalidArgumentError("not a TCP/IP socket");
  }
  return endpoint;
}

enum class Side { kOwn, kPeer };

absl::StatusOr<TcpEndpoint> SocketEndpoint(int fd, Side side) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  auto* raw = reinterpret_cast<sockaddr*>(&address);
  const int rc =
      side == Side::kPeer ? getpeername(fd, raw, &length) : getsockname(fd, raw, &length);
  if (rc != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        side == Side::kPeer ? "getpeername: " : "getsockname: ", std::strerror(errno)));
  }
  return EndpointOf(address);
}

// Closes a descriptor on every path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::optional<uint32_t> FindOwnerInProcNetTcp(std::string_view table, const TcpSocketId& id) {
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(table.data(), table.size()), '\n')) {
    std::vector<std::string_view> fields;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      fields.emplace_back(field.data(), field.size());
    }
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
    if (fields.size() < 8 || fields[0].empty() || fields[0].back() != ':') continue;
    std::optional<TcpEndpoint> local = ParseEndpoint(fields[1]);
    std::optional<TcpEndpoint> remote = ParseEndpoint(fields[2]);
    if (!local || !remote || !SameEndpoint(*local, id.local) || !SameEndpoint(*remote, id.remote) ||
        !OwnedState(fields[3])) {
      continue;
    }
    // The uid column: decimal.
    const std::string_view uid = fields[7];
    if (uid.empty() || uid.size() > 10) continue;
    uint64_t value = 0;
    bool digits = true;
    for (char c : uid) {
      digits = digits && c >= '0' && c <= '9';
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits && value <= UINT32_MAX) return static_cast<uint32_t>(value);
  }
  return std::nullopt;
}

absl::StatusOr<uint32_t> SockDiagOwner(const TcpSocketId& id) {
  Fd netlink{socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)};
  if (netlink.fd < 0) {
    return absl::UnavailableError(absl::StrCat("NETLINK_SOCK_DIAG: ", std::strerror(errno)));
  }
  struct {
    nlmsghdr header;
    inet_diag_req_v2 body;
  } request{};
  request.header.nlmsg_len = sizeof(request);
  request.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  request.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, not a dump
  request.header.nlmsg_seq = 1;
  request.body.sdiag_family = static_cast<uint8_t>(id.local.family);
  request.body.sdiag_protocol = IPPROTO_TCP;
  request.body.idiag_states = ~0u;
  request.body.id.idiag_sport = htons(id.local.port);
  request.body.id.idiag_dport = htons(id.remote.port);
  std::memcpy(request.body.id.idiag_src, id.local.address.data(), 16);
  std::memcpy(request.body.id.idiag_dst, id.remote.address.data(), 16);
  request.body.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  request.body.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(netlink.fd, &request, sizeof(request), 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof(kernel)) != static_cast<ssize_t>(sizeof(request))) {
    return absl::UnavailableError(absl::StrCat("NETLINK_SOCK_DIAG: ", std::strerror(errno)));
  }
  // The kernel answers a diag request while it is being sent, so the reply
  // is already queued: nothing here waits.
  alignas(nlmsghdr) char reply[8192];
  ssize_t n;
  do {
    n = recv(netlink.fd, reply, sizeof(reply), MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return absl::UnavailableError(absl::StrCat("NETLINK_SOCK_DIAG: ", std::strerror(errno)));
  }
  int length = static_cast<int>(n);
  for (auto* h = reinterpret_cast<nlmsghdr*>(reply); NLMSG_OK(h, length);
       h = NLMSG_NEXT(h, length)) {
    if (h->nlmsg_type == NLMSG_ERROR) {
      if (h->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) break;
      const int error = -static_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
      if (error == ENOENT) return absl::NotFoundError("no such TCP socket");
      return absl::UnavailableError(absl::StrCat("NETLINK_SOCK_DIAG: ", std::strerror(error)));
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
      continue;
    }
    const auto* found = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
    // The lookup falls back to a listener on the local address when no
    // connected socket matches; the ports tell one from the other.
    if (ntohs(found->id.idiag_sport) != id.local.port ||
        ntohs(found->id.idiag_dport) != id.remote.port || found->idiag_state == kSynRecv ||
        found->idiag_state == kTimeWait) {
      return absl::NotFoundError("no such TCP socket");
    }
    return found->idiag_uid;
  }
  return absl::UnavailableError("NETLINK_SOCK_DIAG: no answer");
}

absl::StatusOr<uint32_t> ProcNetTcpOwner(const TcpSocketId& id) {
  bool read_any = false;
  auto search = [&read_any](const char* path,
                            const TcpSocketId& wanted) -> std::optional<uint32_t> {
    const std::string table = ReadProcFile(path);
    if (table.empty()) return std::nullopt;
    read_any = true;
    return FindOwnerInProcNetTcp(table, wanted);
  };
  if (id.local.family == AF_INET) {
    if (std::optional<uint32_t> uid = search("/proc/net/tcp", id)) return *uid;
    if (std::optional<uint32_t> uid =
            search("/proc/net/tcp6", TcpSocketId{V4Mapped(id.local), V4Mapped(id.remote)})) {
      return *uid;
    }
  } else if (std::optional<uint32_t> uid = search("/proc/net/tcp6", id)) {
    return *uid;
  }
  if (!read_any) return absl::UnavailableError("cannot read /proc/net/tcp or /proc/net/tcp6");
  return absl::NotFoundError("no such TCP socket");
}

absl::StatusOr<uint32_t> TcpSocketOwner(const TcpSocketId& id) {
  absl::StatusOr<uint32_t> owner = SockDiagOwner(id);
  if (owner.ok() || !absl::IsUnavailable(owner.status())) return owner;
  absl::StatusOr<uint32_t> from_proc = ProcNetTcpOwner(id);
  if (from_proc.ok() || !absl::IsUnavailable(from_proc.status())) return from_proc;
  return absl::UnavailableError(
      absl::StrCat(owner.status().message(), "; ", from_proc.status().message()));
}

absl::StatusOr<uint32_t> PeerOwner(int fd) {
  absl::StatusOr<TcpEndpoint> local = SocketEndpoint(fd, Side::kOwn);
  if (!local.ok()) return local.status();
  absl::StatusOr<TcpEndpoint> peer = SocketEndpoint(fd, Side::kPeer);
  if (!peer.ok()) return peer.status();
  // The peer's socket: its own address is our peer's, its peer is us.
  return TcpSocketOwner(TcpSocketId{*peer, *local});
}

absl::StatusOr<uint32_t> ListenerOwner(int fd) {
  absl::StatusOr<TcpEndpoint> local = SocketEndpoint(fd, Side::kOwn);
  if (!local.ok()) return local.status();
  TcpEndpoint none;
  none.family = local->family;
  return TcpSocketOwner(TcpSocketId{*local, none});
}

}  // namespace raw::web
