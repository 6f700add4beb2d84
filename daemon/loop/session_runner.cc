#include "daemon/loop/session_runner.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/loop/compaction_step.h"
#include "daemon/loop/runtime_record.h"

namespace raw::loop {

SessionRunner::SessionRunner(const store::SessionRecord& record, store::SessionStore& store,
                             const Clock& clock, SessionLog::Redactor redact)
    : session_id_(record.id),
      store_(store),
      log_(std::make_shared<SessionLog>(record.id, record.last_seq, store, clock,
                                        std::move(redact))),
      saved_meter_(record.context_meter) {
  state_->SetRuntime(ParseRuntime(record.runtime_hash));
}

SessionRunner::~SessionRunner() { Shutdown(); }

absl::Status SessionRunner::LoadContextLocked(const TurnPlan& plan) {
  if (!context_loaded_) {
    ASSIGN_OR_RETURN(std::vector<events::ContextItem> items, store_.LoadContext(session_id_));
    ctx_.items = std::move(items);
    ctx_.runtime_tokens = plan.runtime_tokens;
    ctx_.meter.Restore(saved_meter_, plan.runtime_tokens, ctx_.items);
    saved_meter_.clear();
    context_loaded_ = true;
  }
  ctx_.SetRuntime(plan.runtime_tokens);
  return absl::OkStatus();
}

absl::Status SessionRunner::LoadContextForWriteLocked(const TurnPlan& plan) {
  absl::Status loaded = LoadContextLocked(plan);
  if (loaded.ok()) return loaded;
  return absl::Status(loaded.code(),
                      absl::StrCat("session ", session_id_,
                                   " cannot be written: its model context could not be read: ",
                                   loaded.message()));
}

absl::Status SessionRunner::StartTurn(TurnPlan plan) {
  return Start(Operation::kTurn, std::move(plan));
}

absl::Status SessionRunner::StartCompaction(TurnPlan plan) {
  return Start(Operation::kCompaction, std::move(plan));
}

absl::Status SessionRunner::Start(Operation op, TurnPlan plan) {
  RETURN_IF_ERROR(CheckWritable());
  std::thread finished;
  {
    absl::MutexLock lock(&mu_);
    WaitForEndingLocked();
    if (running_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "session ", session_id_, " is busy: ",
          operation_ == Operation::kTurn ? "a turn is running" : "a compaction is running", " (",
          current_turn_, "); interrupt it or wait for it to end"));
    }
    RETURN_IF_ERROR(LoadContextForWriteLocked(plan));
    finished = std::move(thread_);
    running_ = true;
    operation_ = op;
    current_turn_ = plan.turn_id;
    cancel_ = std::make_shared<CancelToken>();
    plan.session = state_;
    plan.first_seq_of_turn = [this](const std::string& turn_id) -> uint64_t {
      absl::StatusOr<uint64_t> seq = store_.FirstSeqOfTurn(session_id_, turn_id);
      return seq.ok() ? *seq : 0;
    };
    // The previous operation's thread has recorded its end and is
    // returning; it no longer touches ctx_.
    if (finished.joinable()) finished.join();
    thread_ = std::thread(&SessionRunner::RunThread, this, op, std::move(plan), cancel_);
  }
  return absl::OkStatus();
}

CommitExtras SessionRunner::EndExtras() {
  CommitExtras extras;
  extras.runtime_hash = SerializeRuntime(state_->runtime());
  return extras;
}

void SessionRunner::RunThread(Operation op, TurnPlan plan, std::shared_ptr<CancelToken> cancel) {
  const std::string turn_id = plan.turn_id;
  if (op == Operation::kCompaction) {
    TurnHooks hooks(plan.hooks, plan.session_id, plan.cwd, turn_id, *log_, *cancel);
    CompactSession(events::CompactionTrigger::kManual, /*last_turn_running=*/false, plan, ctx_,
                   *log_, hooks, *cancel, [this] {
                     absl::MutexLock lock(&mu_);
                     ending_ = true;
                   });
    absl::MutexLock lock(&mu_);
    running_ = false;
    ending_ = false;
    return;
  }
  Turn turn(std::move(plan), *log_, ctx_, *cancel);
  events::TurnEnded end = turn.Run();
  // The meter as the turn leaves it (tool results included), stored with
  // the end so that a restarted daemon keeps the reported baseline.
  ctx_.SyncMeter();
  absl::MutexLock lock(&mu_);
  running_ = false;
  CommitExtras extras = EndExtras();
  extras.conversation_activity = true;
  extras.context_meter = ctx_.meter.Serialize();
  absl::Status s = log_->Commit(turn_id, {end}, std::move(extras));
  if (!s.ok()) {
    RAW_LOG(Error) << "session " << session_id_ << ": could not store the end of turn " << turn_id
                   << ": " << s.message();
    log_->PublishUnstored(turn_id, end);
  }
}

void SessionRunner::WaitForEndingLocked() {
  // A compaction whose end clients may already have seen finishes in
  // moments (a few commits); a client acting on that end must not be told
  // the session is busy.
  if (!running_ || !ending_) return;
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](bool* running) { return !*running; }, &running_),
                       absl::Seconds(10));
}

absl::StatusOr<events::ContextCleared> SessionRunner::Clear(const TurnPlan& plan) {
  RETURN_IF_ERROR(CheckWritable());
  absl::MutexLock lock(&mu_);
  WaitForEndingLocked();
  if (running_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "session ", session_id_, " is busy (", current_turn_,
        "); /clear waits until the running turn or compaction ends"));
  }
  // /clear would drop the context anyway, but its meter and the estimate it
  // reports come from the loaded one.
  RETURN_IF_ERROR(LoadContextForWriteLocked(plan));
  ctx_.SyncMeter();
  events::ContextCleared cleared;
  cleared.tokens_before = ctx_.meter.tokens();
  SessionContext after;
  after.runtime_tokens = ctx_.runtime_tokens;
  after.Rewrite({});
  cleared.tokens_after = after.meter.tokens();
  // The model no longer has any skill text it loaded.
  RuntimeRecord runtime = state_->runtime();
  runtime.loaded_skills.clear();
  CommitExtras extras;
  extras.replace_context = std::vector<events::ContextItem>{};
  extras.context_meter = after.meter.Serialize();
  extras.runtime_hash = SerializeRuntime(runtime);
  RETURN_IF_ERROR(log_->Commit(plan.turn_id, {cleared}, std::move(extras)));
  ctx_ = std::move(after);
  state_->ForgetLoadedSkills();
  events::ContextEstimate estimate = ctx_.meter.Estimate(plan.agent.model.context_window_tokens);
  state_->SetEstimate(estimate);
  log_->PublishLive(plan.turn_id, estimate);
  return cleared;
}

absl::StatusOr<events::ContextEstimate> SessionRunner::Estimate(const TurnPlan& plan) {
  absl::MutexLock lock(&mu_);
  if (running_) {
    if (std::optional<events::ContextEstimate> latest = state_->estimate()) return *latest;
    return absl::UnavailableError("the context estimate is not known yet");
  }
  RETURN_IF_ERROR(LoadContextLocked(plan));
  ctx_.SyncMeter();
  return ctx_.meter.Estimate(plan.agent.model.context_window_tokens);
}

bool SessionRunner::compacting() const {
  absl::MutexLock lock(&mu_);
  return running_ && operation_ == Operation::kCompaction;
}

bool SessionRunner::Interrupt() {
  absl::MutexLock lock(&mu_);
  if (!running_ || !cancel_) return false;
  cancel_->Cancel("interrupted");
  return true;
}

absl::Status SessionRunner::RespondToApproval(
    const std::string& request_id, const std::vector<events::ApprovalAnswer>& answers,
    const std::optional<events::ApprovalAnswer>& all) {
  RETURN_IF_ERROR(CheckWritable());
  return state_->approvals().Respond(request_id, answers, all);
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

absl::Status SessionRunner::RecoverUnfinishedTurn() {
  absl::MutexLock lock(&recovery_mu_);
  if (recovered_) return absl::OkStatus();
  absl::Status s = RecoverLocked();
  if (s.ok()) {
    recovered_ = true;
    if (!recovery_error_.ok()) {
      RAW_LOG(Info) << "session " << session_id_ << ": its history reads again; writes resume";
    }
  } else if (s != recovery_error_) {
    RAW_LOG(Warning) << "session " << session_id_
                     << " cannot be written until its history reads; it can still be read: "
                     << s.message();
  }
  recovery_error_ = s;
  return s;
}

bool SessionRunner::recovered() const {
  absl::MutexLock lock(&recovery_mu_);
  return recovered_;
}

absl::Status SessionRunner::CheckWritable() {
  absl::Status s = RecoverUnfinishedTurn();
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("session ", session_id_,
                                             " cannot be written: its history could not be read: ",
                                             s.message()));
}

absl::Status SessionRunner::RecoverLocked() {
  // Walk back from the newest event to the latest turn boundary.
  std::vector<events::SessionEvent> newer;  // newest first
  std::string cursor;
  const events::SessionEvent* started = nullptr;
  while (started == nullptr) {
    ASSIGN_OR_RETURN(store::HistoryPage page,
                     store_.GetHistory(session_id_, cursor, 256, store::HistoryDirection::kBackward));
    for (auto& e : page.events) {
      if (std::holds_alternative<events::TurnEnded>(e.payload)) return absl::OkStatus();
      newer.push_back(std::move(e));
      if (std::holds_alternative<events::TurnStarted>(newer.back().payload)) {
        started = &newer.back();
        break;
      }
    }
    if (page.next_cursor.empty()) break;
    cursor = page.next_cursor;
  }
  if (started == nullptr) return absl::OkStatus();  // no turn yet
  const std::string turn_id = started->turn_id;

  std::set<std::string> answered;
  std::vector<events::ToolCallInfo> calls;
  std::optional<events::ApprovalRequested> open_request;
  for (auto it = newer.rbegin(); it != newer.rend(); ++it) {
    if (const auto* batch = std::get_if<events::ToolCallBatch>(&it->payload)) {
      calls.insert(calls.end(), batch->calls.begin(), batch->calls.end());
    } else if (const auto* result = std::get_if<events::ToolResult>(&it->payload)) {
      answered.insert(result->call_id);
    } else if (const auto* request = std::get_if<events::ApprovalRequested>(&it->payload)) {
      open_request = *request;
    } else if (std::holds_alternative<events::ApprovalResolved>(it->payload)) {
      open_request.reset();
    }
  }
  std::vector<events::EventPayload> payloads;
  CommitExtras extras;
  // An approval request the crash left open is closed, so that no client
  // offers to answer it.
  if (open_request) {
    events::ApprovalResolved resolved{open_request->request_id, {},
                                      events::ApprovalResolution::kCancelled};
    for (const auto& call : open_request->calls) {
      if (call.state != events::ApprovalState::kPending) continue;
      resolved.answers.push_back({call.call_id, events::ApprovalDecision::kDeny,
                                  "the daemon stopped while the call waited for approval"});
    }
    payloads.push_back(std::move(resolved));
  }
  for (const auto& call : calls) {
    if (answered.count(call.call_id) > 0) continue;
    std::string text =
        "Cancelled: the daemon stopped while this call was pending, so it did not complete.";
    payloads.push_back(events::ToolResult{call.call_id, call.name, call.tool,
                                          events::ToolStatus::kCancelled, text, 0, {}});
    extras.context_appends.push_back(events::ToolOutcome{call.call_id, call.name, text, true});
  }
  events::TurnEnded end;
  end.reason = events::TurnEndReason::kError;
  end.message = "rawd stopped during this turn without finishing it (it was not shut down cleanly)";
  payloads.push_back(end);
  RAW_LOG(Warning) << "session " << session_id_ << ": turn " << turn_id
                   << " was left unfinished by a previous daemon; recording its end";
  // A read (Estimate) may have loaded the context while recovery still
  // failed: what is appended to the store goes to the loaded copy as well,
  // under the same lock, so that the two never differ.
  std::vector<events::ContextItem> appended = extras.context_appends;
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(log_->Commit(turn_id, std::move(payloads), std::move(extras)));
  if (context_loaded_) {
    ctx_.items.insert(ctx_.items.end(), appended.begin(), appended.end());
  }
  return absl::OkStatus();
}

}  // namespace raw::loop
