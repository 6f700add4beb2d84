#include "clients/dashboard/slow_calls.h"

#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

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

void SlowCallQuota::Slot::Release() {
  std::shared_ptr<SlowCallQuota> quota = std::move(quota_);
  quota_ = nullptr;
  if (quota == nullptr) return;
  absl::MutexLock lock(&quota->mu_);
  --quota->taken_;
}

absl::StatusOr<std::shared_ptr<SlowCallQuota::Slot>> SlowCallQuota::Take() {
  absl::MutexLock lock(&mu_);
  if (taken_ >= limit_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this tab has ", limit_,
                     " prompts or compactions waiting for rawd already; wait for their replies"));
  }
  ++taken_;
  return std::shared_ptr<Slot>(new Slot(shared_from_this()));
}

int SlowCallQuota::taken() {
  absl::MutexLock lock(&mu_);
  return taken_;
}

}  // namespace raw::dashboard
