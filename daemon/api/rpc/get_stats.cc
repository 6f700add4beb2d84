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
  // On the worker pool: an unloaded session is loaded to estimate it.
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.GetStats(request.session_id(),
                    [reactor, response](absl::StatusOr<loop::SessionInfo> info) {
                      if (info.ok()) *response = convert::ToStatsProto(*info);
                      FinishWith(reactor, info.status());
                    });
  return reactor;
}

}  // namespace raw::api::rpc
