#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* InterruptTurn(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::InterruptTurnRequest& request,
                            raw::v1::InterruptTurnResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  absl::StatusOr<bool> interrupted = sessions.InterruptTurn(request.session_id(), request.lease_id());
  if (!interrupted.ok()) return ReturnStatus(ctx, interrupted.status());
  response->set_interrupted(*interrupted);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
