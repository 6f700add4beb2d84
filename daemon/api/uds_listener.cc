#include "daemon/api/uds_listener.h"

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/logging.h"
#include "common/paths.h"
#include "common/status_macros.h"
#include "common/thread_start.h"

namespace raw::api {
namespace {

std::string Errno() { return std::strerror(errno); }

absl::Status FillAddress(const std::string& path, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  if (path.empty()) return absl::InvalidArgumentError("the socket path is empty");
  if (path.size() >= sizeof(addr->sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "socket path ", path, " is ", path.size(), " bytes long; Unix sockets allow at most ",
        sizeof(addr->sun_path) - 1, ". Set RAW_SOCKET (or --socket) to a shorter path"));
  }
  std::memcpy(addr->sun_path, path.data(), path.size());
  return absl::OkStatus();
}

// Decides what to do with something already at `path`: nothing there or a
// stale socket is fine (the stale one is removed); anything else is refused.
absl::Status ClearStaleSocket(const std::string& path, const sockaddr_un& addr) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("cannot inspect ", path, ": ", Errno()));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " exists and is not a socket; refusing to replace it"));
  }
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return absl::InternalError(absl::StrCat("socket: ", Errno()));
  int rc = connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  int connect_errno = errno;
  close(probe);
  if (rc == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "another process is already serving on ", path,
        "; stop it first, or give this daemon another socket with --socket"));
  }
  if (connect_errno != ECONNREFUSED && connect_errno != ENOENT) {
    return absl::FailedPreconditionError(absl::StrCat("cannot tell whether ", path,
                                                      " is in use: ", std::strerror(connect_errno)));
  }
  // Left behind by a daemon that was killed: nobody accepts on it.
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove the stale socket ", path, ": ", Errno()));
  }
  RAW_LOG(Info) << "removed stale socket " << path;
  return absl::OkStatus();
}

}  // namespace

UdsListener::UdsListener(std::string path, uid_t allowed_uid)
    : path_(std::move(path)), allowed_uid_(allowed_uid) {}

UdsListener::~UdsListener() { Stop(); }

absl::Status UdsListener::Listen() {
  sockaddr_un addr;
  if (absl::Status s = FillAddress(path_, &addr); !s.ok()) return s;
  if (absl::Status s = ClearStaleSocket(path_, addr); !s.ok()) return s;

  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", Errno()));
  // Linux creates the socket file with the socket's own mode masked by the
  // umask, so setting 0600 here means the file never exists with wider bits,
  // without touching the process-wide umask while other threads run. The
  // chmod after bind makes sure of it wherever that does not hold.
  fchmod(fd, 0600);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    std::string err = Errno();
    close(fd);
    return absl::FailedPreconditionError(absl::StrCat("cannot bind ", path_, ": ", err));
  }
  struct stat st;
  if (chmod(path_.c_str(), 0600) != 0 || lstat(path_.c_str(), &st) != 0) {
    std::string err = Errno();
    close(fd);
    unlink(path_.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot restrict ", path_, ": ", err));
  }
  socket_dev_ = st.st_dev;
  socket_ino_ = st.st_ino;
  bound_ = true;
  listen_fd_ = fd;
  if (listen(fd, SOMAXCONN) != 0) {
    std::string err = Errno();
    Stop();
    return absl::FailedPreconditionError(absl::StrCat("cannot listen on ", path_, ": ", err));
  }
  return PrepareAccept();
}

absl::Status UdsListener::PrepareAccept() {
  if (pipe2(wake_fds_, O_CLOEXEC) != 0) {
    std::string err = Errno();
    Stop();
    return absl::InternalError(absl::StrCat("pipe: ", err));
  }
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  return absl::OkStatus();
}

absl::Status UdsListener::Adopt(int fd) {
  listen_fd_ = fd;  // closed by Stop() on every failure below
  auto refuse = [&](const std::string& why) {
    Stop();
    return absl::FailedPreconditionError(
        absl::StrCat("refusing the socket passed by systemd: ", why));
  };
  int value = 0;
  socklen_t len = sizeof(value);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &value, &len) != 0 || value != AF_UNIX) {
    return refuse("it is not a Unix-domain socket");
  }
  len = sizeof(value);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &value, &len) != 0 || value != SOCK_STREAM) {
    return refuse("it is not a stream socket (ListenStream=)");
  }
  len = sizeof(value);
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &value, &len) != 0 || value != 1) {
    return refuse("it is not listening");
  }
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof(addr));
  socklen_t addr_len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addr_len) != 0) {
    return refuse(absl::StrCat("getsockname: ", Errno()));
  }
  const size_t path_len = addr_len > offsetof(sockaddr_un, sun_path)
                              ? strnlen(addr.sun_path, addr_len - offsetof(sockaddr_un, sun_path))
                              : 0;
  const std::string bound(addr.sun_path, path_len);
  if (bound != path_) {
    return refuse(absl::StrCat("it is bound at \"", bound, "\", but rawd's socket is ", path_,
                               "; make ListenStream= and --socket (or RAW_SOCKET) the same path"));
  }
  if (absl::Status dir = CheckPrivateDir(Dirname(path_)); !dir.ok()) {
    return refuse(std::string(dir.message()));
  }
  struct stat st;
  if (lstat(path_.c_str(), &st) != 0) return refuse(absl::StrCat("cannot inspect ", path_, ": ", Errno()));
  if (!S_ISSOCK(st.st_mode)) return refuse(absl::StrCat(path_, " is not a socket"));
  if (st.st_uid != allowed_uid_) {
    return refuse(absl::StrCat(path_, " is owned by uid ", st.st_uid, ", not by uid ", allowed_uid_));
  }
  // Connecting to a Unix socket takes write permission on its file.
  if ((st.st_mode & 022) != 0) {
    return refuse(absl::StrFormat("%s has mode %04o; group and others must not be able to "
                                  "connect to it (SocketMode=0600)",
                                  path_, st.st_mode & 07777));
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return refuse(absl::StrCat("cannot make it non-blocking: ", Errno()));
  }
  return PrepareAccept();
}

absl::Status UdsListener::Start(grpc::Server& server) {
  ASSIGN_OR_RETURN(thread_, StartThread("accepting connections on the daemon's socket",
                                        [this, s = &server] { AcceptLoop(s); }));
  return absl::OkStatus();
}

void UdsListener::Stop() {
  if (thread_.joinable()) {
    char byte = 'x';
    while (write(wake_fds_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  for (int* fd : {&listen_fd_, &wake_fds_[0], &wake_fds_[1], &spare_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  if (bound_) {
    bound_ = false;
    // Only remove the file we created: if it was replaced meanwhile, it is
    // someone else's.
    struct stat st;
    if (lstat(path_.c_str(), &st) == 0 && st.st_dev == socket_dev_ && st.st_ino == socket_ino_) {
      unlink(path_.c_str());
    }
  }
}

void UdsListener::AcceptLoop(grpc::Server* server) {
  pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fds_[0], POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      RAW_LOG(Error) << "accept loop on " << path_ << " stopped: poll: " << Errno();
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & (POLLERR | POLLNVAL)) != 0) {
      RAW_LOG(Error) << "accept loop on " << path_ << " stopped: the listening socket failed";
      return;
    }
    if ((fds[0].revents & POLLIN) != 0) AcceptPending(server);
  }
}

void UdsListener::AcceptPending(grpc::Server* server) {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      switch (errno) {
        case EINTR:
        case ECONNABORTED:
        case EPROTO:
          continue;
        case EMFILE:
        case ENFILE:
          if (RefuseOneForLackOfFds()) continue;
          return;
        case EAGAIN:
          return;
        default:
          RAW_LOG(Warning) << "accept on " << path_ << ": " << Errno();
          return;
      }
    }
    ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      RAW_LOG(Warning) << "closed a connection on " << path_
                       << ": cannot read its peer credentials: " << Errno();
      close(fd);
      continue;
    }
    if (cred.uid != allowed_uid_) {
      RAW_LOG(Warning) << "refused a connection on " << path_ << " from uid " << cred.uid
                       << " (pid " << cred.pid << "); only uid " << allowed_uid_
                       << " may connect";
      close(fd);
      continue;
    }
    RAW_LOG(Debug) << "client connected: pid " << cred.pid << ", fd " << fd;
    // The server owns the fd from here on.
    grpc::AddInsecureChannelFromFd(server, fd);
  }
}

// Out of file descriptors: the pending connection would make poll report
// the socket readable forever. Free the spare descriptor, accept the
// connection and close it at once, then take the spare back.
bool UdsListener::RefuseOneForLackOfFds() {
  if (spare_fd_ >= 0) {
    close(spare_fd_);
    spare_fd_ = -1;
  }
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) close(fd);
  spare_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  RAW_LOG(Error) << "out of file descriptors: closed a new connection on " << path_;
  return fd >= 0;
}

}  // namespace raw::api
