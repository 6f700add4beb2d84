#include <optional>
#include <string>

#include "daemon/api/convert/session_to_proto.h"
#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* ConfigureSession(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                               const raw::v1::ConfigureSessionRequest& request,
                               raw::v1::ConfigureSessionResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  std::optional<std::string> agent;
  if (request.has_agent()) agent = request.agent();
  std::optional<std::string> model;
  if (request.has_model()) model = request.model();
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.ConfigureSession(request.session_id(), request.lease_id(), std::move(agent),
                            std::move(model),
                            [reactor, response](absl::StatusOr<loop::SessionInfo> info) {
                              if (info.ok()) *response->mutable_session() = convert::ToProto(*info);
                              FinishWith(reactor, info.status());
                            });
  return reactor;
}

}  // namespace raw::api::rpc
