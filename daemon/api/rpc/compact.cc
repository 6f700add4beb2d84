#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* Compact(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                      const raw::v1::CompactRequest& request, raw::v1::CompactResponse* response) {
  if (absl::Status s = RequireSessionId(request.session_id()); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  if (absl::Status s = CheckChosenId(request.operation_id(), "compact_", "operation_id"); !s.ok()) {
    return ReturnStatus(ctx, s);
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.Compact(
      request.session_id(), request.lease_id(),
      [reactor, response](absl::StatusOr<std::string> id) {
        if (id.ok()) response->set_operation_id(*id);
        FinishWith(reactor, id.status());
      },
      request.operation_id());
  return reactor;
}

}  // namespace raw::api::rpc
