#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/api/convert/event_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* RespondToApproval(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::RespondToApprovalRequest& request,
                                raw::v1::RespondToApprovalResponse* /*response*/) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  if (request.request_id().empty()) {
    return ReturnStatus(ctx, absl::InvalidArgumentError("request_id is required"));
  }
  std::vector<events::ApprovalAnswer> answers;
  for (int i = 0; i < request.answers_size(); ++i) {
    const raw::v1::ApprovalAnswer& a = request.answers(i);
    absl::StatusOr<events::ApprovalDecision> decision = convert::FromProto(a.decision());
    if (!decision.ok()) {
      return ReturnStatus(ctx, absl::InvalidArgumentError(
                                   absl::StrCat("answers[", i, "].", decision.status().message())));
    }
    if (a.call_id().empty()) {
      return ReturnStatus(
          ctx, absl::InvalidArgumentError(absl::StrCat("answers[", i, "].call_id is required")));
    }
    if (a.session_rule() < 0) {
      return ReturnStatus(ctx, absl::InvalidArgumentError(absl::StrCat(
                                   "answers[", i, "].session_rule must not be negative")));
    }
    if (a.unattended() && *decision != events::ApprovalDecision::kDeny) {
      return ReturnStatus(ctx, absl::InvalidArgumentError(absl::StrCat(
                                   "answers[", i, "].unattended is only for a denial")));
    }
    answers.push_back({a.call_id(), *decision, a.message(), a.session_rule(), a.unattended()});
  }
  std::optional<events::ApprovalAnswer> all;
  if (request.all() != raw::v1::APPROVAL_DECISION_UNSPECIFIED) {
    absl::StatusOr<events::ApprovalDecision> decision = convert::FromProto(request.all());
    if (!decision.ok()) {
      return ReturnStatus(ctx, absl::InvalidArgumentError(
                                   absl::StrCat("all: ", decision.status().message())));
    }
    if (request.all_session_rule() < 0) {
      return ReturnStatus(ctx,
                          absl::InvalidArgumentError("all_session_rule must not be negative"));
    }
    if (request.all_unattended() && *decision != events::ApprovalDecision::kDeny) {
      return ReturnStatus(ctx, absl::InvalidArgumentError("all_unattended is only for a denial"));
    }
    all = events::ApprovalAnswer{"", *decision, request.all_message(), request.all_session_rule(),
                                 request.all_unattended()};
  } else if (request.all_unattended()) {
    return ReturnStatus(ctx, absl::InvalidArgumentError("all_unattended needs `all`"));
  }
  if (answers.empty() && !all) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(
                                 "give answers for the pending calls, or `all` for every one"));
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.RespondToApproval(request.session_id(), request.request_id(), std::move(answers),
                             std::move(all), request.lease_id(),
                             [reactor](absl::Status s) { FinishWith(reactor, s); });
  return reactor;
}

}  // namespace raw::api::rpc
