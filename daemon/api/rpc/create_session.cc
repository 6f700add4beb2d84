#include "daemon/api/convert/session_mcp_server.h"
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
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.CreateSession(request.agent(), request.cwd(), request.model(),
                         convert::FromProto(request.mcp_servers()),
                         [reactor, response](absl::StatusOr<loop::SessionInfo> info) {
                           if (info.ok()) *response->mutable_session() = convert::ToProto(*info);
                           FinishWith(reactor, info.status());
                         });
  return reactor;
}

}  // namespace raw::api::rpc
