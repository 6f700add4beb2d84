// CancelToken: a one-shot cancellation signal passed down explicitly.
//
// Thread-safe. Cancel() may be called from any thread, any number of times;
// only the first call has an effect. Code that blocks in poll(2) includes
// fd() in its poll set: it becomes readable once the token is cancelled, so
// waiting never needs a sleep loop. Callbacks registered with OnCancel run
// exactly once, one at a time, on the cancelling thread (or immediately, if
// the token is already cancelled); they must be quick, and must not take a
// lock that a caller of RemoveCallback holds while it removes them (it
// waits for them). A callback may remove itself or another.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace raw {

class CancelToken {
 public:
  CancelToken();
  ~CancelToken();
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void Cancel(std::string reason = "cancelled");
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  std::string reason() const;

  // Readable (never written to by the reader) once cancelled.
  int fd() const { return pipe_[0]; }

  // Registers `fn`; returns an id for RemoveCallback. Const: observing a
  // token (as a holder of `const CancelToken&` does) does not cancel it.
  int OnCancel(std::function<void()> fn) const;
  // After this returns, the callback `id` does not run and is not running,
  // so what it refers to may be destroyed: one not yet run never runs, and
  // one running on the cancelling thread is waited for (unless this is
  // called from that thread, by a callback).
  void RemoveCallback(int id) const;

 private:
  std::atomic<bool> cancelled_{false};
  int pipe_[2] = {-1, -1};
  mutable absl::Mutex mu_;
  std::string reason_ ABSL_GUARDED_BY(mu_);
  mutable int next_id_ ABSL_GUARDED_BY(mu_) = 1;
  mutable std::vector<std::pair<int, std::function<void()>>> callbacks_ ABSL_GUARDED_BY(mu_);
  // The callback Cancel runs now (0: none), and the thread running it.
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread::id canceller_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw
