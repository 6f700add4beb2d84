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
  absl::StatusOr<events::ContextEstimate> estimate =
      sessions.ClearContext(request.session_id(), request.lease_id());
  if (!estimate.ok()) return ReturnStatus(ctx, estimate.status());
  *response->mutable_context() = convert::ToProto(*estimate);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
