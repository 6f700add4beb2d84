// Test support: the thread that owns a client-side object (a front end's UI
// thread). Tasks posted from other threads run when the test calls
// RunUntil, on the test's thread.
#pragma once

#include <deque>
#include <functional>

#include "absl/synchronization/mutex.h"

namespace raw::testing {

class OwnerQueue {
 public:
  void Post(std::function<void()> task) {
    absl::MutexLock l(&mu_);
    tasks_.push_back(std::move(task));
  }
  // Runs posted tasks until `done` holds (checked before each task).
  void RunUntil(const std::function<bool()>& done) {
    while (!done()) {
      std::function<void()> task;
      {
        absl::MutexLock l(&mu_);
        auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !tasks_.empty(); };
        mu_.Await(absl::Condition(&ready));
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

 private:
  absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::testing
