// SessionRunner: the warm-up, which serializes a long history for the
// agent's provider while a client that took the lease types its prompt (see
// WarmUp in session_runner.h).
#include <memory>
#include <utility>

#include "common/time.h"
#include "daemon/loop/session_runner.h"

namespace raw::loop {

void SessionRunner::WarmUp() {
  if (!recovered()) return;  // the first write recovers, and may append
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_ || warming_ || op_state_ != State::kIdle) return;
    const size_t items =
        context_loaded_ ? ctx_.items.size() : context::ContextMeter::SavedItems(saved_meter_);
    if (items < deps_.warm_history_items) return;
    if (context_loaded_ && ctx_.serialized.generation() == ctx_.generation) return;  // kept
    warming_ = true;
    warm_serialize_start_ns_ = 0;
  }
  auto self = shared_from_this();
  // The plan reads the config and the agent's skills: off the queue, like a
  // turn's.
  bool scheduled = deps_.pool.Schedule([self] {
    auto plan =
        std::make_shared<absl::StatusOr<TurnPlan>>(self->deps_.planner(PlanPurpose::kWarmup, ""));
    self->Post([self, plan] { self->WarmWithPlan(std::move(*plan)); },
               [self](absl::Status) { self->EndWarmUp(); });
  });
  if (!scheduled) EndWarmUp();
}

void SessionRunner::WarmWithPlan(absl::StatusOr<TurnPlan> plan) {
  auto self = shared_from_this();
  std::shared_ptr<providers::Provider> provider;
  {
    absl::MutexLock lock(&mu_);
    // No operation can have started since WarmUp (each waits for the
    // warm-up), but one may be preparing; it waits too.
    if (shutting_down_ || !plan.ok() || plan->provider == nullptr ||
        !LoadContextLocked(*plan).ok()) {
      return EndWarmUpLocked();
    }
    // Readers leave the items alone while they are out: the meter must
    // have caught up with them first.
    ctx_.SyncMeter();
    if (ctx_.serialized.generation() == ctx_.generation) return EndWarmUpLocked();
    provider = std::move(plan->provider);
    warm_serialize_start_ns_ = SteadyNowNs();
  }
  bool scheduled = deps_.pool.Schedule([self, provider] {
    SessionContext& ctx = self->ctx_;
    providers::ModelRequest request;
    request.messages = std::move(ctx.items);
    request.history = &ctx.serialized;
    request.history_generation = ctx.generation;
    provider->Prepare(request);
    ctx.items = std::move(request.messages);
    self->Post([self] { self->EndWarmUp(); }, [self](absl::Status) { self->EndWarmUp(); });
  });
  if (!scheduled) EndWarmUp();
}

bool SessionRunner::AfterWarmUpLocked(std::function<void()> retry) {
  if (!warming_) return false;
  after_warm_.push_back(std::move(retry));
  return true;
}

bool SessionRunner::QuiescentLocked() const { return op_state_ == State::kIdle && !warming_; }

namespace {

// Waits (with `mu` held) until `waiting`, guarded by `mu`, holds `count`
// commands or more; false after `timeout`.
bool AwaitWaiting(absl::Mutex& mu, const std::vector<std::function<void()>>& waiting, size_t count,
                  absl::Duration timeout) {
  struct Args {
    const std::vector<std::function<void()>>* waiting;
    size_t count;
  } args{&waiting, count};
  return mu.AwaitWithTimeout(absl::Condition(
                                 +[](Args* a) { return a->waiting->size() >= a->count; }, &args),
                             timeout);
}

}  // namespace

bool SessionRunner::AwaitWaitingForWarmUpForTesting(size_t count, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return AwaitWaiting(mu_, after_warm_, count, timeout);
}

bool SessionRunner::AwaitDeferredForTesting(size_t count, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return AwaitWaiting(mu_, deferred_, count, timeout);
}

}  // namespace raw::loop
