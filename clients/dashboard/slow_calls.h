// The gateway's daemon calls that may take minutes: StartTurn and Compact,
// which rawd answers only once the turn's or compaction's plan is built
// (secret `command` variables, a probe, the warm-up; docs/variables.md
// allows a variable up to 600 s). Each runs on a thread of its own, so the
// tab's next commands (interrupt, approve, release_lease) run at once
// instead of waiting behind it on the tab's command queue.
//
// Each call holds a thread and its request (a prompt's images, up to
// 10 MiB) until rawd answers or the 11-minute deadline passes, so a tab
// may have at most kMaxSlowCallsPerTab of them at once (SlowCallQuota);
// past that a call is refused with RESOURCE_EXHAUSTED instead of started.
// The page itself sends no second prompt or compaction while one is being
// prepared.
#pragma once

#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::dashboard {

inline constexpr int kMaxSlowCallsPerTab = 2;

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

// One tab's share of SlowCalls: at most `limit` calls at once, each holding
// a Slot while it runs. Thread-safe; a Slot keeps its quota alive (a call
// may outlive its tab).
class SlowCallQuota : public std::enable_shared_from_this<SlowCallQuota> {
 public:
  class Slot {
   public:
    ~Slot() { Release(); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    // Frees the slot (once; later calls and the destructor do nothing).
    // A call frees it before it sends its reply, so that the tab may send
    // its next command as soon as it has the reply.
    void Release();

   private:
    friend class SlowCallQuota;
    explicit Slot(std::shared_ptr<SlowCallQuota> quota) : quota_(std::move(quota)) {}
    std::shared_ptr<SlowCallQuota> quota_;  // null once released
  };

  static std::shared_ptr<SlowCallQuota> Create(int limit) {
    return std::shared_ptr<SlowCallQuota>(new SlowCallQuota(limit));
  }

  // A slot, or RESOURCE_EXHAUSTED when all `limit` are taken.
  absl::StatusOr<std::shared_ptr<Slot>> Take();

  int taken();

 private:
  explicit SlowCallQuota(int limit) : limit_(limit) {}

  const int limit_;
  absl::Mutex mu_;
  int taken_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::dashboard
