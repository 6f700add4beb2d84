#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* DeclineHandover(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                              const raw::v1::DeclineHandoverRequest& request,
                              raw::v1::DeclineHandoverResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  // A command on the session's queue, like every lease change: the call
  // finishes when it has run.
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.DeclineHandover(request.session_id(), request.lease_id(),
                           [reactor, response](absl::StatusOr<int> declined) {
                             if (declined.ok()) response->set_declined(*declined);
                             FinishWith(reactor, declined.status());
                           });
  return reactor;
}

}  // namespace raw::api::rpc
