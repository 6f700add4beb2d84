#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* Compact(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                      const raw::v1::CompactRequest& request, raw::v1::CompactResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  absl::StatusOr<std::string> id = sessions.Compact(request.session_id(), request.lease_id());
  if (!id.ok()) return ReturnStatus(ctx, id.status());
  response->set_operation_id(*id);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
