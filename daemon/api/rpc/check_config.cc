// CheckConfig: the daemon's worker pool checks the file (SessionManager::
// CheckConfig reads the package store entries and skill folders its agents
// use); the call finishes from there.
#include <string>

#include "daemon/api/rpc/handlers.h"
#include "daemon/api/rpc/request_checks.h"

namespace raw::api::rpc {

UnaryReactor* CheckConfig(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                          const raw::v1::CheckConfigRequest& request,
                          raw::v1::CheckConfigResponse* response) {
  // An empty path checks the file the daemon itself reads.
  std::string path = request.path().empty() ? sessions.config_path() : request.path();
  if (absl::Status s = RequireAbsolutePath(path, "path"); !s.ok()) return ReturnStatus(ctx, s);
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.CheckConfig(std::move(path),
                       [reactor, response](absl::StatusOr<loop::ConfigCheck> check) {
                         if (!check.ok()) {
                           FinishWith(reactor, check.status());
                           return;
                         }
                         response->set_path(check->path);
                         response->set_exists(check->exists);
                         for (const std::string& error : check->errors) response->add_errors(error);
                         FinishWith(reactor, absl::OkStatus());
                       });
  return reactor;
}

}  // namespace raw::api::rpc
