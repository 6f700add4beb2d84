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
  std::optional<std::string> approval_mode;
  if (request.has_approval_mode()) approval_mode = request.approval_mode();
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.ConfigureSession(
      request.session_id(), request.lease_id(), std::move(agent), std::move(model),
      std::move(approval_mode),
      [reactor, response](absl::StatusOr<loop::ConfiguredSession> configured) {
        if (configured.ok()) {
          *response->mutable_session() = convert::ToProto(configured->session);
          response->set_approval_mode(configured->approval_mode);
        }
        FinishWith(reactor, configured.status());
      });
  return reactor;
}

}  // namespace raw::api::rpc
