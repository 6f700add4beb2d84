// ApprovalBroker: the meeting point of a turn waiting for approval and the
// clients answering it (RespondToApproval), for one session.
//
// The turn thread Open()s a request with its pending call ids before the
// ApprovalRequested event is stored (so no answer can arrive for an unknown
// request), then Wait()s until every pending call is answered, the timeout
// passes or the turn is cancelled. Client threads call Respond(); answers
// may come in several calls, and one answer may cover the whole batch.
// Answers are copied in; nothing a client holds can change them later.
// Thread-safety: all methods are thread-safe; one request at a time.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cancel_token.h"
#include "daemon/events/session_event.h"

namespace raw::loop {

struct ApprovalOutcome {
  events::ApprovalResolution resolution = events::ApprovalResolution::kAnswered;
  // One per pending call (in the order they were opened); unanswered calls
  // get a kDeny answer saying why (timeout or cancellation).
  std::vector<events::ApprovalAnswer> answers;
  // Call ids no client answered (their answer says why).
  std::set<std::string> unanswered;
};

class ApprovalBroker {
 public:
  // `session_options` gives, per pending call id, how many "allow for this
  // session" options the call offers (absent: none). kInvalidArgument,
  // opening nothing, when an id is listed twice.
  absl::Status Open(const std::string& request_id, const std::vector<std::string>& pending_call_ids,
                    const std::map<std::string, int>& session_options = {});

  ApprovalOutcome Wait(absl::Duration timeout, const CancelToken& cancel);

  // kNotFound when `request_id` is not the open request; kInvalidArgument
  // for a call id that is not pending in it or answered twice in one
  // response, or an allow-for-session answer choosing an option its call
  // does not offer. `all` answers every pending call not listed in
  // `answers`; a call offering fewer options than its session_rule gets
  // option 0. `lease_id` is the writer's: answers given under another lease
  // are dropped first, so that every call waits for the new writer. No
  // event shows answers before the whole batch is answered, so a client
  // that took the session over (or reloaded) shows every call as waiting;
  // its "deny all" must not leave an earlier "allow" standing.
  absl::Status Respond(const std::string& request_id,
                       const std::vector<events::ApprovalAnswer>& answers,
                       const std::optional<events::ApprovalAnswer>& all,
                       const std::string& lease_id = "");

  // The open request's id, or "" when none.
  std::string open_request() const;

 private:
  bool Done() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::string request_id_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> order_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::optional<events::ApprovalAnswer>> answers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> session_options_ ABSL_GUARDED_BY(mu_);
  // The lease the answers so far came under.
  std::string answered_under_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw::loop
