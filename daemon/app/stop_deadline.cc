#include "daemon/app/stop_deadline.h"

#include <utility>

#include "common/logging.h"

namespace raw::app {

StopDeadline::StopDeadline(absl::Duration deadline, std::function<void()> expire)
    : watcher_([this, deadline, expire = std::move(expire)] { Watch(deadline, expire); }) {}

StopDeadline::~StopDeadline() {
  {
    absl::MutexLock lock(&mu_);
    finished_ = true;
  }
  watcher_.join();
}

void StopDeadline::Step(std::string name) {
  absl::MutexLock lock(&mu_);
  step_ = std::move(name);
}

void StopDeadline::Watch(absl::Duration deadline, const std::function<void()>& expire) {
  std::string step;
  {
    absl::MutexLock lock(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&finished_), deadline)) return;
    step = step_;
  }
  RAW_LOG(Error) << "rawd did not finish stopping within " << absl::FormatDuration(deadline)
                 << " (it was " << step
                 << "); it exits now, and its next start ends the processes it leaves running";
  expire();
}

}  // namespace raw::app
