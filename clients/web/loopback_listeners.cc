#include "clients/web/loopback_listeners.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::web {
namespace {

// Kernel picks tried before a port whose other address is taken is kept:
// a free port that is taken at ::1 is rare, so this many in a row means
// something keeps taking them, and serving on the bound address alone
// beats not serving.
constexpr int kMaxPicks = 16;

struct Bound {
  ListenerFd fd;
  int error = 0;  // errno of the step that failed; 0: bound
};

// A TCP socket bound to `v6` ? [::1]:port : 127.0.0.1:port, not yet
// listening.
Bound Bind(bool v6, uint16_t port) {
  Bound out;
  out.fd = ListenerFd(socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (out.fd.get() < 0) {
    out.error = errno;
    return out;
  }
  const int one = 1;
  // Rebinding a port with connections in TIME_WAIT. It never lets a socket
  // bind beside a listening one.
  if (setsockopt(out.fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
      (v6 && setsockopt(out.fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0)) {
    out.error = errno;
    return out;
  }
  int rc;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    a.sin6_port = htons(port);
    rc = bind(out.fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    rc = bind(out.fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  if (rc != 0) out.error = errno;
  return out;
}

uint16_t PortOf(int fd) {
  sockaddr_storage a{};
  socklen_t length = sizeof(a);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) != 0) return 0;
  if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6&>(a).sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in&>(a).sin_port);
}

std::string HostOf(bool v6) { return v6 ? "[::1]" : "127.0.0.1"; }

}  // namespace

ListenerFd::~ListenerFd() {
  if (fd_ >= 0) close(fd_);
}

ListenerFd& ListenerFd::operator=(ListenerFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.Release();
  }
  return *this;
}

OtherAddress ClassifyOtherBindError(int error, bool port_was_picked) {
  if (error == EADDRNOTAVAIL || error == EAFNOSUPPORT) return OtherAddress::kNobodyCanHoldIt;
  if (error == EADDRINUSE && port_was_picked) return OtherAddress::kTryAnotherPort;
  return OtherAddress::kTaken;
}

absl::StatusOr<LoopbackListeners> BindLoopbackListeners(
    const std::string& address, uint16_t port,
    const std::function<void(uint16_t)>& before_other_bind) {
  if (address != "127.0.0.1" && address != "::1") {
    return absl::InvalidArgumentError(
        absl::StrCat("local server: address \"", address,
                     "\" is not loopback; only 127.0.0.1 and ::1 are allowed"));
  }
  const bool v6 = address == "::1";
  for (int pick = 1;; ++pick) {
    Bound primary = Bind(v6, port);
    if (primary.error != 0) {
      return absl::UnavailableError(absl::StrCat("local server: cannot listen on ", address, ":",
                                                 port, ": ", std::strerror(primary.error)));
    }
    LoopbackListeners out;
    out.port = PortOf(primary.fd.get());
    if (before_other_bind) before_other_bind(out.port);
    Bound other = Bind(!v6, out.port);
    OtherAddress outcome = OtherAddress::kTaken;
    if (other.error != 0) {
      outcome = ClassifyOtherBindError(other.error, port == 0 && pick < kMaxPicks);
      if (outcome == OtherAddress::kTryAnotherPort) continue;
    }
    if (listen(primary.fd.get(), SOMAXCONN) != 0 ||
        (other.error == 0 && listen(other.fd.get(), SOMAXCONN) != 0)) {
      return absl::UnavailableError(absl::StrCat("local server: cannot listen on ", address, ":",
                                                 out.port, ": ", std::strerror(errno)));
    }
    out.primary = std::move(primary.fd);
    out.own_hosts.push_back(HostOf(v6));
    if (other.error == 0) {
      out.other = std::move(other.fd);
      out.own_hosts.push_back(HostOf(!v6));
      out.own_hosts.push_back("localhost");
    } else if (outcome == OtherAddress::kNobodyCanHoldIt) {
      out.own_hosts.push_back("localhost");
    } else {
      out.notice =
          absl::StrCat("localhost:", out.port, " is not accepted, only ", HostOf(v6), ":", out.port,
                       ": ", HostOf(!v6), ":", out.port, " is held by another program (",
                       std::strerror(other.error), "), which would answer for localhost");
    }
    return out;
  }
}

}  // namespace raw::web
