#include <string>

#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* DeleteSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::DeleteSessionRequest& request,
                            raw::v1::DeleteSessionResponse* /*response*/) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.DeleteSession(request.session_id(), request.lease_id(),
                         [reactor](absl::Status s) { FinishWith(reactor, s); });
  return reactor;
}

}  // namespace raw::api::rpc
