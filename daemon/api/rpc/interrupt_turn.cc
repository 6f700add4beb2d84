#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* InterruptTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::InterruptTurnRequest& request,
                            raw::v1::InterruptTurnResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  if (absl::Status s = CheckChosenId(request.operation_id(), "", "operation_id"); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.InterruptTurn(
      request.session_id(), request.lease_id(),
      [reactor, response](absl::StatusOr<bool> interrupted) {
        if (interrupted.ok()) response->set_interrupted(*interrupted);
        FinishWith(reactor, interrupted.status());
      },
      request.operation_id());
  return reactor;
}

}  // namespace raw::api::rpc
