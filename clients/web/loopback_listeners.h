// The listening sockets of a local server (local_server.h): its loopback
// address, and the other loopback address on the same port.
//
// A browser (and getaddrinfo) may reach `localhost:PORT` at either
// 127.0.0.1 or ::1, usually ::1 first. Were only one of them bound, any
// other local user could listen on the other with the same port and serve
// `http://localhost:PORT` themselves: a page the server would take for its
// own (Origin) and a place where a user who typed `localhost` hands over
// the token. So both are bound, and `localhost` counts as the server's own
// only when no one else can hold the other address:
//
// - it is bound here (IPV6_V6ONLY for ::1);
// - or the machine has no such address (EADDRNOTAVAIL, EAFNOSUPPORT: no
//   IPv6), so no one can listen there either.
// When another socket holds it already (EADDRINUSE), a port the kernel
// picked is given up for another one; a port the caller chose is kept, but
// only the bound address is the server's own then (`localhost` and the
// other literal are refused by Host and Origin), and `notice` says why.
// Any other error counts as taken.
//
// Linux; thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::web {

// Owns one descriptor (closed on destruction), -1 for none.
class ListenerFd {
 public:
  ListenerFd() = default;
  explicit ListenerFd(int fd) : fd_(fd) {}
  ~ListenerFd();
  ListenerFd(ListenerFd&& other) noexcept : fd_(other.Release()) {}
  ListenerFd& operator=(ListenerFd&& other) noexcept;
  ListenerFd(const ListenerFd&) = delete;
  ListenerFd& operator=(const ListenerFd&) = delete;

  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct LoopbackListeners {
  ListenerFd primary;  // the requested address, listening
  ListenerFd other;    // the other loopback address on `port`, when held
  uint16_t port = 0;
  // The hosts a request's Host (and an Origin's host) may name, with
  // `port`: "127.0.0.1" or "[::1]" for each address held, and "localhost"
  // when no one else can hold either.
  std::vector<std::string> own_hosts;
  // Empty, or one line that says why `localhost` is not accepted.
  std::string notice;
};

// What a failure to bind the other address means (see the header comment).
enum class OtherAddress {
  kNobodyCanHoldIt,  // no such address here
  kTryAnotherPort,   // taken, and the port was the kernel's pick
  kTaken,            // taken (or unknown): the port stays, localhost does not
};
OtherAddress ClassifyOtherBindError(int error, bool port_was_picked);

// Binds and listens on `address` ("127.0.0.1" or "::1") at `port` (0: a
// free one) and on the other loopback address at the same port. Errors:
// `address` not loopback, or the address itself cannot be bound.
// `before_other_bind`, for tests, runs with the port just before the other
// address is bound (a test binds it there to stand for another user).
absl::StatusOr<LoopbackListeners> BindLoopbackListeners(
    const std::string& address, uint16_t port,
    const std::function<void(uint16_t)>& before_other_bind = nullptr);

}  // namespace raw::web
