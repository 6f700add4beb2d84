#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* GetSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::GetSessionRequest& request,
                         raw::v1::GetSessionResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  // On the worker pool: an unloaded session is loaded to estimate it.
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.GetSession(request.session_id(), !request.without_context(),
                      [reactor, response](absl::StatusOr<loop::SessionInfo> info) {
                        if (info.ok()) *response->mutable_session() = convert::ToProto(*info);
                        FinishWith(reactor, info.status());
                      });
  return reactor;
}

}  // namespace raw::api::rpc
