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
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.StartTurn(request.session_id(), request.text(), request.lease_id(),
                     [reactor, response](absl::StatusOr<std::string> turn_id) {
                       if (turn_id.ok()) response->set_turn_id(*turn_id);
                       FinishWith(reactor, turn_id.status());
                     });
  return reactor;
}

}  // namespace raw::api::rpc
