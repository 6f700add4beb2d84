#include "daemon/loop/session_runner.h"

#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace raw::loop {

SessionRunner::SessionRunner(const store::SessionRecord& record, store::SessionStore& store,
                             const Clock& clock)
    : session_id_(record.id),
      store_(store),
      log_(std::make_shared<SessionLog>(record.id, record.last_seq, store, clock)) {}

SessionRunner::~SessionRunner() { Shutdown(); }

absl::Status SessionRunner::StartTurn(TurnPlan plan) {
  std::thread finished;
  {
    absl::MutexLock lock(&mu_);
    if (running_) {
      return absl::FailedPreconditionError(
          absl::StrCat("session ", session_id_, " already has a running turn (", current_turn_,
                       "); interrupt it or wait for it to end"));
    }
    if (!context_loaded_) {
      auto items = store_.LoadContext(session_id_);
      if (!items.ok()) return items.status();
      context_ = std::move(*items);
      context_loaded_ = true;
    }
    finished = std::move(thread_);
    running_ = true;
    current_turn_ = plan.turn_id;
    cancel_ = std::make_shared<CancelToken>();
    // The previous turn's thread has recorded its end and is returning; it
    // no longer touches context_.
    if (finished.joinable()) finished.join();
    thread_ = std::thread(&SessionRunner::RunThread, this, std::move(plan), cancel_);
  }
  return absl::OkStatus();
}

void SessionRunner::RunThread(TurnPlan plan, std::shared_ptr<CancelToken> cancel) {
  const std::string turn_id = plan.turn_id;
  Turn turn(std::move(plan), *log_, context_, *cancel);
  events::TurnEnded end = turn.Run();
  absl::MutexLock lock(&mu_);
  running_ = false;
  absl::Status s = log_->Commit(turn_id, {end}, CommitExtras{{}, std::nullopt, true, ""});
  if (!s.ok()) {
    RAW_LOG(Error) << "session " << session_id_ << ": could not store the end of turn " << turn_id
                   << ": " << s.message();
    log_->PublishUnstored(turn_id, end);
  }
}

bool SessionRunner::Interrupt() {
  absl::MutexLock lock(&mu_);
  if (!running_ || !cancel_) return false;
  cancel_->Cancel("interrupted");
  return true;
}

bool SessionRunner::running() const {
  absl::MutexLock lock(&mu_);
  return running_;
}

std::unique_ptr<Subscription> SessionRunner::Subscribe(uint64_t after_seq) {
  return log_->Subscribe(after_seq);
}

void SessionRunner::Shutdown() {
  std::thread t;
  {
    absl::MutexLock lock(&mu_);
    if (running_ && cancel_) cancel_->Cancel("the daemon is shutting down");
    t = std::move(thread_);
  }
  if (t.joinable()) t.join();
}

}  // namespace raw::loop
