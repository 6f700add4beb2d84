// StateLock: the one-daemon-per-state-directory guarantee.
//
// An exclusive flock(2) on <state_dir>/rawd.lock, held for the daemon's
// lifetime; the file holds the owner's pid so that a second daemon can say
// who is running. The kernel drops the lock when the process dies, so a
// killed daemon never leaves a stale lock; the file itself stays (removing
// a lock file would let two processes lock two different files).
//
// Not thread-safe; owned by the composition root.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace raw::app {

class StateLock {
 public:
  // Takes the lock. When another process holds it, fails with
  // kFailedPrecondition: "another rawd (pid N) is already running for state
  // directory X" -- unless that daemon is stopping (MarkStopping): then
  // waits up to `wait_for_stopping` for it to exit (telling `on_wait` once,
  // with its pid), so that a client arriving during a stop gets a new
  // daemon rather than an error.
  static absl::StatusOr<std::unique_ptr<StateLock>> Acquire(
      const std::string& lock_path, const std::string& state_dir,
      absl::Duration wait_for_stopping = absl::Seconds(20),
      const std::function<void(long pid)>& on_wait = nullptr);
  // Says in the lock file that this daemon is stopping: it no longer
  // listens, and a new one may wait for the lock.
  void MarkStopping();
  // Empties the file and releases the lock.
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  explicit StateLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace raw::app
