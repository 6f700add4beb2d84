#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* DeclineHandover(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                              const raw::v1::DeclineHandoverRequest& request,
                              raw::v1::DeclineHandoverResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  absl::StatusOr<int> declined =
      sessions.DeclineHandover(request.session_id(), request.lease_id());
  if (!declined.ok()) return ReturnStatus(ctx, declined.status());
  response->set_declined(*declined);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
