#include <string>

#include "absl/strings/ascii.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* StartTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                        const raw::v1::StartTurnRequest& request,
                        raw::v1::StartTurnResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  if (absl::StripAsciiWhitespace(request.text()).empty()) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(
                                 "text is required: a turn starts with a non-empty user message"));
  }
  absl::StatusOr<std::string> turn_id = sessions.StartTurn(request.session_id(), request.text(),
                                                           request.lease_id());
  if (!turn_id.ok()) return ReturnStatus(ctx, turn_id.status());
  response->set_turn_id(*turn_id);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
