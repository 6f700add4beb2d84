#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* ClearContext(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ClearContextRequest& request,
                           raw::v1::ClearContextResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.ClearContext(request.session_id(), request.lease_id(),
                        [reactor, response](absl::StatusOr<events::ContextEstimate> estimate) {
                          if (estimate.ok()) *response->mutable_context() = convert::ToProto(*estimate);
                          FinishWith(reactor, estimate.status());
                        });
  return reactor;
}

}  // namespace raw::api::rpc
