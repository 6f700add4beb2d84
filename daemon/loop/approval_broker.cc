#include "daemon/loop/approval_broker.h"

#include <set>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "common/failpoint.h"

namespace raw::loop {

absl::Status ApprovalBroker::Open(const std::string& request_id,
                                  const std::vector<std::string>& pending_call_ids,
                                  const std::map<std::string, int>& session_options) {
  std::set<std::string_view> ids;
  for (const std::string& id : pending_call_ids) {
    // One answer slot per id: a repeated id would let one answer cover
    // calls nobody answered.
    if (!ids.insert(id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("call id ", id, " is pending twice in approval request ", request_id));
    }
  }
  absl::MutexLock lock(&mu_);
  request_id_ = request_id;
  answered_under_.clear();
  session_options_ = session_options;
  order_ = pending_call_ids;
  answers_.clear();
  for (const std::string& id : pending_call_ids) answers_[id] = std::nullopt;
  cancelled_ = false;
  return absl::OkStatus();
}

bool ApprovalBroker::Done() const {
  if (cancelled_) return true;
  for (const auto& [id, answer] : answers_) {
    if (!answer) return false;
  }
  return true;
}

ApprovalOutcome ApprovalBroker::Wait(absl::Duration timeout, const CancelToken& cancel) {
  RAW_FAILPOINT("approval.waiting");
  int callback = cancel.OnCancel([this] {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
  });
  ApprovalOutcome outcome;
  {
    absl::MutexLock lock(&mu_);
    bool finished = mu_.AwaitWithTimeout(absl::Condition(this, &ApprovalBroker::Done), timeout);
    if (cancelled_) {
      outcome.resolution = events::ApprovalResolution::kCancelled;
    } else if (!finished) {
      outcome.resolution = events::ApprovalResolution::kTimedOut;
    }
    for (const std::string& id : order_) {
      // Answers that came in before a timeout or cancellation are kept as
      // given; the rest are denied with the reason.
      const auto& answer = answers_[id];
      if (answer) {
        outcome.answers.push_back(*answer);
        continue;
      }
      outcome.unanswered.insert(id);
      std::string why = outcome.resolution == events::ApprovalResolution::kCancelled
                            ? "the turn was interrupted while the call waited for approval"
                            : absl::StrCat("no answer to the approval request within ",
                                           absl::FormatDuration(timeout));
      outcome.answers.push_back({id, events::ApprovalDecision::kDeny, why});
    }
    request_id_.clear();
    order_.clear();
    session_options_.clear();
    answers_.clear();
  }
  cancel.RemoveCallback(callback);
  return outcome;
}

absl::Status ApprovalBroker::Respond(const std::string& request_id,
                                     const std::vector<events::ApprovalAnswer>& answers,
                                     const std::optional<events::ApprovalAnswer>& all,
                                     const std::string& lease_id) {
  absl::MutexLock lock(&mu_);
  if (request_id_.empty() || request_id != request_id_) {
    return absl::NotFoundError(
        request_id_.empty()
            ? absl::StrCat("approval request ", request_id, " is not pending (nothing is)")
            : absl::StrCat("approval request ", request_id, " is not pending (", request_id_,
                           " is)"));
  }
  // Another writer's answers are dropped (this one was shown every call
  // waiting), once the response is known to be valid.
  const bool new_writer = lease_id != answered_under_;
  std::set<std::string> seen;
  for (const events::ApprovalAnswer& a : answers) {
    auto it = answers_.find(a.call_id);
    if (it == answers_.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "call ", a.call_id, " is not part of approval request ", request_id));
    }
    if ((it->second && !new_writer) || !seen.insert(a.call_id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("call ", a.call_id, " has already been answered"));
    }
    int offered = session_options_.contains(a.call_id) ? session_options_.at(a.call_id) : 0;
    if (a.decision == events::ApprovalDecision::kAllowSession && a.session_rule != 0 &&
        (a.session_rule < 0 || a.session_rule >= offered)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "call ", a.call_id, " offers ", offered, " session rule option",
          offered == 1 ? "" : "s", "; session_rule ", a.session_rule, " is not one of them"));
    }
  }
  if (new_writer) {
    for (auto& [id, answer] : answers_) answer.reset();
    answered_under_ = lease_id;
  }
  for (const events::ApprovalAnswer& a : answers) answers_[a.call_id] = a;
  if (all) {
    for (auto& [id, answer] : answers_) {
      if (answer) continue;
      answer = *all;
      answer->call_id = id;
      auto offered = session_options_.find(id);
      if (answer->session_rule >= (offered == session_options_.end() ? 0 : offered->second)) {
        answer->session_rule = 0;
      }
    }
  }
  return absl::OkStatus();
}

std::string ApprovalBroker::open_request() const {
  absl::MutexLock lock(&mu_);
  return request_id_;
}

}  // namespace raw::loop
