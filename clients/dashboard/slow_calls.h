// The gateway's daemon calls that may take minutes: StartTurn and Compact,
// which rawd answers only once the turn's or compaction's plan is built
// (secret `command` variables, a probe, the warm-up; docs/variables.md
// allows a variable up to 600 s). Each runs on a thread of its own, so the
// tab's next commands (interrupt, approve, release_lease) run at once
// instead of waiting behind it on the tab's command queue.
#pragma once

#include <functional>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::dashboard {

class SlowCalls : public std::enable_shared_from_this<SlowCalls> {
 public:
  static std::shared_ptr<SlowCalls> Create() { return std::shared_ptr<SlowCalls>(new SlowCalls()); }

  // Runs `call` on a new thread, which keeps this object alive. `call` must
  // own everything it uses (no pointer to a tab: the tab may close first).
  void Run(std::function<void()> call);

  // Waits until no call runs or `limit` passed; true when none runs. The
  // gateway exits after this without joining a call still in rawd.
  bool WaitIdle(absl::Duration limit);

  int running();

 private:
  SlowCalls() = default;

  absl::Mutex mu_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::dashboard
