#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* GetStats(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                       const raw::v1::GetStatsRequest& request,
                       raw::v1::GetStatsResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  absl::StatusOr<loop::SessionInfo> info = sessions.GetStats(request.session_id());
  if (!info.ok()) return ReturnStatus(ctx, info.status());
  *response = convert::ToStatsProto(*info);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
