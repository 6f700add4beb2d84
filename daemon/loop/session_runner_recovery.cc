// SessionRunner: closing a turn that a previous daemon left unfinished
// (see RecoverUnfinishedTurn in session_runner.h).
#include <algorithm>
#include <list>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/loop/session_runner.h"

namespace raw::loop {

std::string SessionRunner::UnstoredEndReason(const std::string& operation,
                                             const std::string& turn_id,
                                             const absl::Status& cause) {
  return absl::StrCat("the end of its ", operation, " ", turn_id,
                      " could not be stored: ", cause.message());
}

void SessionRunner::RecordUnstoredCompactionEnd(const std::string& op_id,
                                                const events::CompactionEnded& ended, uint64_t seq,
                                                const absl::Status& cause) {
  absl::MutexLock recovery_lock(&recovery_mu_);
  RAW_LOG(Error) << "session " << session_id_ << ": could not store the end of compaction " << op_id
                 << "; the session takes no writes until it is stored";
  unstored_end_ = UnstoredEnd{op_id, "compaction", {OwedEvent{seq, ended}}, {}};
  recovered_ = false;
  recovered_seen_.store(false, std::memory_order_release);
  recovery_error_ = absl::Status(cause.code(), UnstoredEndReason("compaction", op_id, cause));
}

absl::Status SessionRunner::RecoverUnfinishedTurn() {
  absl::MutexLock lock(&recovery_mu_);
  return RecoverOnceLocked();
}

absl::Status SessionRunner::RecoverOnceLocked() {
  if (recovered_) return absl::OkStatus();
  const bool storing_end = unstored_end_.has_value();
  const std::string operation = storing_end ? unstored_end_->operation : "";
  absl::Status s = storing_end ? StoreUnstoredEndLocked() : RecoverLocked();
  if (s.ok()) {
    recovered_ = true;
    recovered_seen_.store(true, std::memory_order_release);
    if (!recovery_error_.ok()) {
      RAW_LOG(Info) << "session " << session_id_ << ": "
                    << (storing_end ? absl::StrCat("the end of its last ", operation, " is stored")
                                    : "its history reads again")
                    << "; writes resume";
    }
  } else if (s != recovery_error_) {
    RAW_LOG(Warning) << "session " << session_id_
                     << (storing_end ? " cannot be written: "
                                     : " cannot be written until its history reads; it can "
                                       "still be read: ")
                     << s.message();
  }
  recovery_error_ = s;
  return s;
}

absl::Status SessionRunner::StoreUnstoredEndLocked() {
  const UnstoredEnd& pending = *unstored_end_;
  absl::MutexLock lock(&mu_);
  absl::Status s = log_->CommitPublished(pending.events, pending.turn_id, pending.extras);
  if (!s.ok()) {
    return absl::Status(s.code(), UnstoredEndReason(pending.operation, pending.turn_id, s));
  }
  RAW_LOG(Info) << "session " << session_id_ << ": stored the end of " << pending.operation << " "
                << pending.turn_id;
  unstored_end_.reset();
  return absl::OkStatus();
}

bool SessionRunner::recovered() const {
  absl::MutexLock lock(&recovery_mu_);
  return recovered_;
}

absl::Status SessionRunner::CheckWritable() {
  absl::MutexLock lock(&recovery_mu_);
  absl::Status s = RecoverOnceLocked();
  if (s.ok()) return s;
  // A turn's end to store: its reason says so (UnstoredEndReason).
  const char* cause = unstored_end_.has_value() ? "" : "its history could not be read: ";
  return absl::Status(
      s.code(), absl::StrCat("session ", session_id_, " cannot be written: ", cause, s.message()));
}

absl::Status SessionRunner::RecoverLocked() {
  // Walk back from the newest event to the latest turn boundary. A manual
  // compaction is not a turn: its events may follow the last TurnEnded.
  std::vector<events::SessionEvent> newer;  // newest first
  std::string cursor;
  const events::SessionEvent* started = nullptr;
  bool boundary = false;
  while (!boundary) {
    ASSIGN_OR_RETURN(store::HistoryPage page,
                     deps_.store.GetHistory(session_id_, cursor, 256, store::HistoryDirection::kBackward));
    for (auto& e : page.events) {
      if (std::holds_alternative<events::TurnEnded>(e.payload)) {
        boundary = true;
        break;
      }
      newer.push_back(std::move(e));
      if (std::holds_alternative<events::TurnStarted>(newer.back().payload)) {
        started = &newer.back();
        boundary = true;
        break;
      }
    }
    if (page.next_cursor.empty()) break;
    cursor = page.next_cursor;
  }
  // Compactions run one at a time, so only the newest can be unfinished. Its
  // summary would have replaced the context in the same commit as its end,
  // so the context is as it was before it.
  const events::SessionEvent* open_compaction = nullptr;
  for (const auto& e : newer) {
    if (std::holds_alternative<events::CompactionEnded>(e.payload)) break;
    if (std::holds_alternative<events::CompactionStarted>(e.payload)) {
      open_compaction = &e;
      break;
    }
  }
  std::vector<events::EventPayload> payloads;
  if (open_compaction != nullptr) {
    const auto& start = std::get<events::CompactionStarted>(open_compaction->payload);
    events::CompactionEnded ended;
    ended.trigger = start.trigger;
    ended.outcome = events::CompactionOutcome::kCancelled;
    ended.tokens_before = start.tokens_before;
    ended.tokens_after = start.tokens_before;
    ended.message =
        "rawd stopped during this compaction (it was not shut down cleanly); the context is "
        "unchanged.";
    payloads.push_back(std::move(ended));
    RAW_LOG(Warning) << "session " << session_id_ << ": compaction " << open_compaction->turn_id
                     << " was left unfinished by a previous daemon; recording its end";
  }
  if (started == nullptr) {  // no unfinished turn
    if (payloads.empty()) return absl::OkStatus();
    absl::MutexLock lock(&mu_);
    return log_->Commit(open_compaction->turn_id, std::move(payloads));
  }
  const std::string turn_id = started->turn_id;
  if (open_compaction != nullptr && open_compaction->turn_id != turn_id) {
    // A manual compaction cannot run inside a turn; commit its end on its own.
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(log_->Commit(open_compaction->turn_id, std::move(payloads)));
    payloads.clear();
  }

  // The calls still without a result, oldest first. A result answers the
  // oldest open call of its id: a provider that sends no call ids gets ids
  // Raw makes up per step ("call_0"), which a later step of the same turn
  // uses again.
  std::list<events::ToolCallInfo> calls;
  std::optional<events::ApprovalRequested> open_request;
  for (auto it = newer.rbegin(); it != newer.rend(); ++it) {
    if (const auto* batch = std::get_if<events::ToolCallBatch>(&it->payload)) {
      calls.insert(calls.end(), batch->calls.begin(), batch->calls.end());
    } else if (const auto* result = std::get_if<events::ToolResult>(&it->payload)) {
      auto open = std::find_if(calls.begin(), calls.end(), [&](const events::ToolCallInfo& c) {
        return c.call_id == result->call_id;
      });
      if (open != calls.end()) calls.erase(open);
    } else if (const auto* request = std::get_if<events::ApprovalRequested>(&it->payload)) {
      open_request = *request;
    } else if (std::holds_alternative<events::ApprovalResolved>(it->payload)) {
      open_request.reset();
    }
  }
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
    // The daemon may have stopped before the call started, while it ran, or
    // after it took effect but before its result was stored: the model is
    // told so, so that it checks before repeating an action.
    std::string text =
        "Interrupted: the daemon restarted while this call was pending or running, so it may or "
        "may not have taken effect; check its effects before repeating it.";
    payloads.push_back(events::ToolResult{
        call.call_id, call.name, call.tool, events::ToolStatus::kCancelled, text, 0, {}, {}});
    extras.context_appends.push_back(events::ToolOutcome{call.call_id, call.name, text, true});
  }
  events::TurnEnded end;
  end.reason = events::TurnEndReason::kError;
  end.message =
      "rawd stopped during this turn without recording its end (it was not shut down cleanly, or "
      "the store refused the end)";
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
