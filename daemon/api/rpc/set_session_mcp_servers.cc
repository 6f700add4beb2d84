#include "daemon/api/convert/session_mcp_server.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* SetSessionMcpServers(grpc::CallbackServerContext* ctx,
                                   loop::SessionManager& sessions,
                                   const raw::v1::SetSessionMcpServersRequest& request,
                                   raw::v1::SetSessionMcpServersResponse* /*response*/) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.SetSessionMcpServers(request.session_id(), request.lease_id(),
                                convert::FromProto(request.servers()),
                                [reactor](absl::Status s) { FinishWith(reactor, s); });
  return reactor;
}

}  // namespace raw::api::rpc
