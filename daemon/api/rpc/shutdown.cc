#include <functional>
#include <utility>

#include "common/logging.h"
#include "daemon/api/convert/status_to_grpc.h"
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {
namespace {

// Replies first; the daemon is asked to stop only from OnDone, once the
// reply has been sent (or the caller went away), so the caller never sees
// its connection dropped before the answer.
class ShutdownReactor final : public UnaryReactor {
 public:
  explicit ShutdownReactor(std::function<void()> request_shutdown)
      : request_shutdown_(std::move(request_shutdown)) {
    Finish(convert::ToGrpcStatus(absl::OkStatus()));
  }

  void OnDone() override {
    std::function<void()> request_shutdown = std::move(request_shutdown_);
    delete this;
    if (request_shutdown) request_shutdown();
  }

 private:
  std::function<void()> request_shutdown_;
};

}  // namespace

UnaryReactor* Shutdown(grpc::CallbackServerContext* /*ctx*/,
                       const std::function<void()>& request_shutdown,
                       const raw::v1::ShutdownRequest& /*request*/,
                       raw::v1::ShutdownResponse* /*response*/) {
  RAW_LOG(Info) << "shutdown requested through the API";
  return new ShutdownReactor(request_shutdown);
}

}  // namespace raw::api::rpc
