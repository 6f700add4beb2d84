#include "clients/lib/daemon_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/paths.h"

namespace raw::client {
namespace {

// RFC 9113 §3.4: the client connection preface, then an empty SETTINGS
// frame (length 0, type 0x4, flags 0, stream 0).
constexpr char kClientPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr unsigned char kEmptySettings[] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
constexpr size_t kFrameHeaderBytes = 9;
constexpr unsigned char kSettingsFrameType = 0x4;
constexpr unsigned char kAckFlag = 0x1;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status NotADaemon(const std::string& path, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat(
      "the listener at ", path, " is not a Raw daemon: ", what,
      ". If no rawd should be there, remove the socket (rm ", path,
      ") and try again"));
}

// Sends the preface and waits (until `deadline`) for the server's first
// frame header, which must be a SETTINGS frame that is not an ACK.
absl::Status CheckHandshake(int fd, const std::string& path, absl::Duration timeout) {
  std::string hello(kClientPreface);
  hello.append(reinterpret_cast<const char*>(kEmptySettings), sizeof kEmptySettings);
  size_t sent = 0;
  // A listener that answers without reading may close before the preface is
  // written: what it sent is still read and judged below.
  while (sent < hello.size()) {
    ssize_t n = send(fd, hello.data() + sent, hello.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    sent += static_cast<size_t>(n);
  }
  unsigned char header[kFrameHeaderBytes];
  size_t got = 0;
  const absl::Time deadline = absl::Now() + timeout;
  while (got < sizeof header) {
    int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0) {
      return NotADaemon(path, absl::StrCat("it did not answer within ",
                                           absl::FormatDuration(timeout)));
    }
    pollfd p = {fd, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(left_ms));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
    if (rc == 0) continue;
    ssize_t n = recv(fd, header + got, sizeof header - got, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0 && errno != ECONNRESET) {
      return NotADaemon(path, absl::StrCat("reading from it failed (", std::strerror(errno), ")"));
    }
    if (n <= 0) return NotADaemon(path, "it closed the connection without answering");
    got += static_cast<size_t>(n);
  }
  if (header[3] != kSettingsFrameType || (header[4] & kAckFlag) != 0) {
    return NotADaemon(path, "it answered with something other than gRPC (HTTP/2)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDaemonSocket(const std::string& socket_path, absl::Duration handshake_timeout) {
  const std::string& path = socket_path;
  absl::Status dir = CheckPrivateDir(Dirname(path));
  if (absl::IsNotFound(dir)) {
    return absl::UnavailableError(absl::StrCat("no daemon is running at ", path));
  }
  if (!dir.ok()) return dir;

  sockaddr_un addr;
  if (path.size() >= sizeof addr.sun_path) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "socket path %s is %d bytes long; Unix sockets allow at most %d. Choose a shorter path",
        path, path.size(), sizeof addr.sun_path - 1));
  }
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  Fd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  // A full backlog would block connect(2) indefinitely; SO_SNDTIMEO bounds
  // it (and the sends of the handshake).
  timeval tv = absl::ToTimeval(handshake_timeout);
  setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int err = 0;
  while (connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    err = errno;
    if (err != EINTR) break;
    err = 0;
  }
  switch (err) {
    case 0:
    case EISCONN:  // a connect interrupted by a signal completed meanwhile
      break;
    case ENOENT:
    case ECONNREFUSED:
      return absl::UnavailableError(absl::StrCat("no daemon is running at ", path));
    case EAGAIN:
    case EINPROGRESS:
      // SO_SNDTIMEO ran out while the listener's backlog stayed full.
      return NotADaemon(path, absl::StrCat("it accepted no connection within ",
                                           absl::FormatDuration(handshake_timeout)));
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(
          absl::StrCat("cannot connect to ", path, ": permission denied"));
    default:
      return absl::UnavailableError(
          absl::StrCat("cannot connect to ", path, ": ", std::strerror(err)));
  }

  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot learn who listens at ", path, ": ", std::strerror(errno)));
  }
  if (cred.uid != getuid()) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "the socket %s is held by uid %d (pid %d), not by you (uid %d); refusing to talk to it. "
        "Remove it (rm %s, as its owner or root) or set RAW_SOCKET to a path in a directory "
        "you own",
        path, cred.uid, cred.pid, getuid(), path));
  }
  return CheckHandshake(fd.get(), path, handshake_timeout);
}

}  // namespace raw::client
