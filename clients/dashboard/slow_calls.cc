#include "clients/dashboard/slow_calls.h"

#include <thread>
#include <utility>

namespace raw::dashboard {

void SlowCalls::Run(std::function<void()> call) {
  {
    absl::MutexLock lock(&mu_);
    ++running_;
  }
  std::thread([self = shared_from_this(), call = std::move(call)] {
    call();
    absl::MutexLock lock(&self->mu_);
    --self->running_;
  }).detach();
}

bool SlowCalls::WaitIdle(absl::Duration limit) {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
  return mu_.AwaitWithTimeout(absl::Condition(&idle), limit);
}

int SlowCalls::running() {
  absl::MutexLock lock(&mu_);
  return running_;
}

}  // namespace raw::dashboard
