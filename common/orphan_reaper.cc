#include "common/orphan_reaper.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/owned_children.h"
#include "common/thread_start.h"

namespace raw {

absl::StatusOr<std::unique_ptr<OrphanReaper>> OrphanReaper::Start() {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  int signal_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    return absl::InternalError(absl::StrCat("signalfd(SIGCHLD): ", std::strerror(errno)));
  }
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    close(signal_fd);
    return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  }
  auto reaper = std::unique_ptr<OrphanReaper>(new OrphanReaper(signal_fd, stop_fd));
  absl::StatusOr<std::thread> thread =
      StartThread("reaping orphaned processes", [r = reaper.get()] { r->Loop(); });
  if (!thread.ok()) return thread.status();  // the destructor closes the descriptors
  reaper->thread_ = *std::move(thread);
  return reaper;
}

OrphanReaper::OrphanReaper(int signal_fd, int stop_fd) : signal_fd_(signal_fd), stop_fd_(stop_fd) {}

OrphanReaper::~OrphanReaper() {
  uint64_t one = 1;
  (void)!write(stop_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();  // not when Start could not start it
  close(signal_fd_);
  close(stop_fd_);
}

void OrphanReaper::Loop() {
  // Orphans that exited before the thread started.
  ReapOrphans();
  for (;;) {
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int rc = poll(fds, 2, -1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0 || fds[1].revents != 0) return;
    signalfd_siginfo info;
    while (read(signal_fd_, &info, sizeof info) == sizeof info) {
    }
    ReapOrphans();
  }
}

}  // namespace raw
