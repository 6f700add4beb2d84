#include "clients/cli/interrupt_watcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace raw::cli {
namespace {

// Write end of the self-pipe, used by the signal handler.
std::atomic<int> g_signal_write{-1};
// Exit status for a second SIGINT, or -1.
std::atomic<int> g_exit_on_second{-1};
std::atomic<int> g_signals{0};
struct sigaction g_previous_action;

void OnSigint(int) {
  int saved = errno;
  int exit_status = g_exit_on_second.load(std::memory_order_relaxed);
  if (g_signals.fetch_add(1, std::memory_order_relaxed) >= 1 && exit_status >= 0) {
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, "\n", 1);
    _exit(exit_status);
  }
  int fd = g_signal_write.load(std::memory_order_relaxed);
  if (fd >= 0) {
    char byte = 'i';
    // Non-blocking: with the pipe full, interrupts are already pending.
    [[maybe_unused]] ssize_t n = write(fd, &byte, 1);
  }
  errno = saved;
}

}  // namespace

absl::StatusOr<std::unique_ptr<InterruptWatcher>> InterruptWatcher::Start(
    Callback on_interrupt, std::optional<int> exit_on_second) {
  int signal_pipe[2];
  int stop_pipe[2];
  if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  if (pipe2(stop_pipe, O_CLOEXEC) != 0) {
    int err = errno;
    close(signal_pipe[0]);
    close(signal_pipe[1]);
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(err)));
  }
  int expected = -1;
  if (!g_signal_write.compare_exchange_strong(expected, signal_pipe[1])) {
    for (int fd : {signal_pipe[0], signal_pipe[1], stop_pipe[0], stop_pipe[1]}) close(fd);
    return absl::FailedPreconditionError("an interrupt watcher is already active");
  }
  g_signals = 0;
  g_exit_on_second = exit_on_second.value_or(-1);
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = OnSigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_previous_action);
  return std::unique_ptr<InterruptWatcher>(new InterruptWatcher(
      std::move(on_interrupt), signal_pipe[0], stop_pipe[0], stop_pipe[1]));
}

InterruptWatcher::InterruptWatcher(Callback on_interrupt, int signal_read, int stop_read,
                                   int stop_write)
    : on_interrupt_(std::move(on_interrupt)),
      signal_read_(signal_read),
      stop_read_(stop_read),
      stop_write_(stop_write),
      thread_([this] { Loop(); }) {}

InterruptWatcher::~InterruptWatcher() {
  sigaction(SIGINT, &g_previous_action, nullptr);
  g_exit_on_second = -1;
  int signal_write = g_signal_write.exchange(-1);
  char byte = 's';
  [[maybe_unused]] ssize_t n = write(stop_write_, &byte, 1);
  thread_.join();
  for (int fd : {signal_read_, signal_write, stop_read_, stop_write_}) close(fd);
}

void InterruptWatcher::Loop() {
  int count = 0;
  for (;;) {
    pollfd fds[2] = {{signal_read_, POLLIN, 0}, {stop_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) {
      char buf[16];
      ssize_t n = read(signal_read_, buf, sizeof buf);
      for (ssize_t i = 0; i < n; ++i) on_interrupt_(++count);
    }
    if (fds[1].revents != 0) return;
  }
}

}  // namespace raw::cli
