#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {

UnaryReactor* ReturnStatus(grpc::CallbackServerContext* ctx, const absl::Status& status) {
  UnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(convert::ToGrpcStatus(status));
  return reactor;
}

void FinishWith(UnaryReactor* reactor, const absl::Status& status) {
  reactor->Finish(convert::ToGrpcStatus(status));
}

}  // namespace raw::api::rpc
