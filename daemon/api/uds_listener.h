// UdsListener: the daemon's Unix-socket listener, with a peer check on
// every connection.
//
// gRPC 1.51 does not reveal a Unix-socket peer's credentials, so the daemon
// owns the listening socket itself: it binds and listens (the socket file
// gets mode 0600), accepts on its own thread, reads SO_PEERCRED of each
// connection and closes every connection whose uid is not `allowed_uid`
// (logging that uid and pid). Accepted connections are handed to the gRPC
// server with grpc::AddInsecureChannelFromFd; the server itself has no
// listening ports. The directory holding the socket is the caller's
// business (raw::EnsurePrivateDir makes it 0700 and checks its owner).
//
// Ownership: owns the listening socket, the accept thread and the socket
// file (removed by Stop). The grpc::Server passed to Start must outlive
// Stop().
//
// Thread-safety: Listen, Start and Stop are called from one thread (the
// daemon's main thread); the accept thread touches only its own fds.
#pragma once

#include <sys/types.h>

#include <string>
#include <thread>

#include "absl/status/status.h"

namespace grpc {
class Server;
}

namespace raw::api {

class UdsListener {
 public:
  UdsListener(std::string path, uid_t allowed_uid);
  ~UdsListener();
  UdsListener(const UdsListener&) = delete;
  UdsListener& operator=(const UdsListener&) = delete;

  // Creates the socket at `path` with mode 0600 and starts listening.
  // A stale socket file (nobody accepts on it) is replaced. A live socket
  // (another daemon answers there), a file that is not a socket, or a path
  // longer than a Unix socket address allows is an error saying so.
  absl::Status Listen();

  // Takes over `fd`, a listening socket bound by someone else (systemd's
  // socket activation), instead of Listen(). It must pass the checks that
  // Listen's own socket does: a listening Unix stream socket bound at
  // `path`, whose file is a socket owned by `allowed_uid` that group and
  // others cannot connect to (no write bit for them), in a private directory (common/paths.h
  // CheckPrivateDir). Otherwise kFailedPrecondition saying which check
  // failed; the fd is closed either way on failure. The socket file belongs
  // to whoever bound it: Stop() does not remove it.
  absl::Status Adopt(int fd);

  // Starts the accept thread; ResourceExhausted when no thread can be
  // started. REQUIRES: Listen() succeeded.
  absl::Status Start(grpc::Server& server);

  // Stops accepting (connections already handed to the server stay open),
  // joins the accept thread, closes the listening socket and removes the
  // socket file if it is still the one this listener created. Idempotent.
  void Stop();

  const std::string& path() const { return path_; }

 private:
  void AcceptLoop(grpc::Server* server);
  // Accepts every pending connection; returns when none is left.
  void AcceptPending(grpc::Server* server);
  // Returns false when not even that was possible.
  bool RefuseOneForLackOfFds();
  // The wake pipe and the spare descriptor, once listen_fd_ is set.
  absl::Status PrepareAccept();

  const std::string path_;
  const uid_t allowed_uid_;
  int listen_fd_ = -1;
  int wake_fds_[2] = {-1, -1};  // the write end stops the accept thread
  int spare_fd_ = -1;           // released to shed a connection when out of fds
  dev_t socket_dev_ = 0;        // identity of the socket file we created
  ino_t socket_ino_ = 0;
  bool bound_ = false;           // the socket file is ours to remove
  std::thread thread_;
};

}  // namespace raw::api
