#include "daemon/app/stop_deadline.h"

#include <utility>

#include "common/logging.h"
#include "common/thread_start.h"

namespace raw::app {

StopDeadline::StopDeadline(absl::Duration deadline, std::function<void()> expire) {
  absl::StatusOr<std::thread> watcher =
      StartThread("the deadline of the stop",
                  [this, deadline, expire = std::move(expire)] { Watch(deadline, expire); });
  if (!watcher.ok()) {
    // The stop goes on without its bound: each step still bounds itself.
    RAW_LOG(Warning) << watcher.status().message() << "; the stop is not bounded";
    return;
  }
  watcher_ = *std::move(watcher);
}

StopDeadline::~StopDeadline() {
  {
    absl::MutexLock lock(&mu_);
    finished_ = true;
  }
  if (watcher_.joinable()) watcher_.join();
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
