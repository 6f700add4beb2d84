// InterruptWatcher: turns SIGINT (Ctrl-C) into calls on an ordinary thread.
//
// While a watcher lives, SIGINT no longer terminates the process: the signal
// handler only writes a byte to a pipe (the self-pipe technique; write(2) is
// async-signal-safe), and the watcher's thread, blocked in poll(2) on that
// pipe, calls `on_interrupt(n)` for the n-th signal (n from 1). The callback
// may do anything an ordinary thread may (RPCs, output), since it does not
// run in signal context. The destructor restores the previous SIGINT action
// and joins the thread.
//
// With `exit_on_second` set, a second SIGINT ends the process at once with
// that status from inside the signal handler (_exit is async-signal-safe),
// whatever the callback is doing at the time, for example waiting on an RPC.
//
// At most one watcher exists per process at a time (the signal handler is
// process-wide); Start fails with kFailedPrecondition otherwise.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "absl/status/statusor.h"

namespace raw::cli {

class InterruptWatcher {
 public:
  using Callback = std::function<void(int count)>;

  static absl::StatusOr<std::unique_ptr<InterruptWatcher>> Start(
      Callback on_interrupt, std::optional<int> exit_on_second = std::nullopt);

  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;
  ~InterruptWatcher();

 private:
  InterruptWatcher(Callback on_interrupt, int signal_read, int stop_read, int stop_write);
  void Loop();

  Callback on_interrupt_;
  int signal_read_;
  int stop_read_;
  int stop_write_;
  std::thread thread_;
};

}  // namespace raw::cli
