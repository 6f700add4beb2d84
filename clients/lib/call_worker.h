// CallWorker: one background thread that runs blocking calls (unary RPCs,
// connecting, starting the daemon) in the order they were queued, so that
// a front end's own thread never waits on the daemon. A task reports back
// by posting to that thread.
//
// Thread-safe: Run from any thread. The destructor finishes the task in
// progress, drops the rest and joins.
#pragma once

#include <deque>
#include <functional>
#include <thread>

#include "absl/synchronization/mutex.h"

namespace raw::client {

class CallWorker {
 public:
  CallWorker();
  ~CallWorker();
  CallWorker(const CallWorker&) = delete;
  CallWorker& operator=(const CallWorker&) = delete;

  void Run(std::function<void()> task);

 private:
  void Loop();
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace raw::client
