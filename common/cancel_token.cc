#include "common/cancel_token.h"

#include <fcntl.h>
#include <unistd.h>

namespace raw {

CancelToken::CancelToken() {
  if (pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    pipe_[0] = pipe_[1] = -1;
  }
}

CancelToken::~CancelToken() {
  if (pipe_[0] >= 0) close(pipe_[0]);
  if (pipe_[1] >= 0) close(pipe_[1]);
}

void CancelToken::Cancel(std::string reason) {
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return;
    reason_ = std::move(reason);
    cancelled_.store(true, std::memory_order_release);
    canceller_ = std::this_thread::get_id();
  }
  if (pipe_[1] >= 0) {
    char c = 'x';
    [[maybe_unused]] ssize_t n = write(pipe_[1], &c, 1);
  }
  // One at a time, taken out just before it runs, so that a RemoveCallback
  // meanwhile either takes a callback out before it runs or waits for it.
  for (;;) {
    std::function<void()> fn;
    {
      absl::MutexLock lock(&mu_);
      running_ = 0;
      if (callbacks_.empty()) return;
      running_ = callbacks_.front().first;
      fn = std::move(callbacks_.front().second);
      callbacks_.erase(callbacks_.begin());
    }
    fn();
    fn = nullptr;  // what it captured goes before a remover may go on
  }
}

std::string CancelToken::reason() const {
  absl::MutexLock lock(&mu_);
  return reason_;
}

int CancelToken::OnCancel(std::function<void()> fn) const {
  {
    absl::MutexLock lock(&mu_);
    if (!cancelled_.load(std::memory_order_relaxed)) {
      int id = next_id_++;
      callbacks_.emplace_back(id, std::move(fn));
      return id;
    }
  }
  fn();
  return 0;
}

void CancelToken::RemoveCallback(int id) const {
  absl::MutexLock lock(&mu_);
  for (auto it = callbacks_.begin(); it != callbacks_.end(); ++it) {
    if (it->first == id) {
      callbacks_.erase(it);
      return;
    }
  }
  if (id == 0 || canceller_ == std::this_thread::get_id()) return;
  auto finished = [this, id]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ != id; };
  mu_.Await(absl::Condition(&finished));
}

}  // namespace raw
