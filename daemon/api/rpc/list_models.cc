#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {

UnaryReactor* ListModels(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::ListModelsRequest& /*request*/,
                         raw::v1::ListModelsResponse* response) {
  absl::StatusOr<std::vector<config::ModelConfig>> models = sessions.ListModels();
  if (!models.ok()) return ReturnStatus(ctx, models.status());
  for (const config::ModelConfig& model : *models) {
    raw::v1::ModelInfo* info = response->add_models();
    info->set_name(model.name);
    info->set_api(model.method);
    info->set_model_id(model.model_id);
    if (model.context_window_tokens) {
      info->set_context_window_tokens(*model.context_window_tokens);
    }
    info->set_images(model.images);
  }
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
