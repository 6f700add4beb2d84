// SignalWaiter: takes the signals that end raw-acp (SIGINT, SIGTERM,
// SIGHUP) on a thread of its own, so that the bridge can let go of its
// sessions on the event loop (interrupt the turns it started, release its
// leases) before the process exits, as when its client goes away.
//
// BlockStopSignals() must run before any other thread starts: every thread
// inherits the blocked mask, so the signals reach only the waiter's
// sigwait. `on_signal` runs on the waiter's thread with the number of
// signals taken so far (1 for the first). The destructor stops the thread.
// SIGKILL cannot be taken: a bridge killed that way leaves its turns to
// rawd.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace raw::acp {

// The signals raw-acp takes, blocked in the calling thread (and so in the
// threads it starts from now on).
sigset_t BlockStopSignals();

class SignalWaiter {
 public:
  SignalWaiter(sigset_t signals, std::function<void(int count)> on_signal);
  ~SignalWaiter();

  SignalWaiter(const SignalWaiter&) = delete;
  SignalWaiter& operator=(const SignalWaiter&) = delete;

 private:
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace raw::acp
