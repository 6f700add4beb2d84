// UiQueue: how other threads hand work to the UI thread.
//
// Post() appends a task and makes wake_fd() readable; the UI thread's poll
// loop wakes on it and runs everything queued with RunPending(), in order.
// Tasks posted after Close() are dropped. The queue is drained completely on
// every wake-up, so it stays short: the UI thread does nothing slow.
//
// Thread-safe: Post from any thread; RunPending, wake_fd and Close on the UI
// thread.
#pragma once

#include <deque>
#include <functional>

#include "absl/synchronization/mutex.h"

namespace raw::tui {

class UiQueue {
 public:
  using Task = std::function<void()>;

  UiQueue();
  ~UiQueue();
  UiQueue(const UiQueue&) = delete;
  UiQueue& operator=(const UiQueue&) = delete;

  void Post(Task task);
  // Runs the tasks queued so far; returns how many ran.
  int RunPending();
  int wake_fd() const { return fd_; }
  void Close();

 private:
  int fd_ = -1;  // eventfd
  absl::Mutex mu_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw::tui
