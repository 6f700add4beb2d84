#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* CreateSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                            const raw::v1::CreateSessionRequest& request,
                            raw::v1::CreateSessionResponse* response) {
  if (absl::Status s = RequireAbsolutePath(request.cwd(), "cwd"); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  // An empty agent name selects the configured default agent.
  absl::StatusOr<loop::SessionInfo> info = sessions.CreateSession(request.agent(), request.cwd());
  if (!info.ok()) return ReturnStatus(ctx, info.status());
  *response->mutable_session() = convert::ToProto(*info);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
