#include "daemon/api/rpc/handlers.h"
#include "daemon/config/config_loader.h"

namespace raw::api::rpc {

UnaryReactor* GetConfigTemplate(grpc::CallbackServerContext* ctx, const DaemonInfo& info,
                                const raw::v1::GetConfigTemplateRequest& /*request*/,
                                raw::v1::GetConfigTemplateResponse* response) {
  response->set_text(config::ConfigTemplate());
  // Where this daemon reads its config, so that `raw config init` writes the
  // file the daemon will actually load.
  response->set_default_path(info.config_path);
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
