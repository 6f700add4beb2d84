#include "daemon/loop/session_runner.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"

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
    plan.session = state_;
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

absl::Status SessionRunner::RespondToApproval(
    const std::string& request_id, const std::vector<events::ApprovalAnswer>& answers,
    const std::optional<events::ApprovalAnswer>& all) {
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
  return log_->Commit(turn_id, std::move(payloads), std::move(extras));
}

}  // namespace raw::loop
