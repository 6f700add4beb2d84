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
  std::vector<std::pair<int, std::function<void()>>> callbacks;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return;
    reason_ = std::move(reason);
    cancelled_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  if (pipe_[1] >= 0) {
    char c = 'x';
    [[maybe_unused]] ssize_t n = write(pipe_[1], &c, 1);
  }
  for (auto& [id, fn] : callbacks) fn();
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
}

}  // namespace raw
