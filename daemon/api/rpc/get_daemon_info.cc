#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {

UnaryReactor* GetDaemonInfo(grpc::CallbackServerContext* ctx, const DaemonInfo& info,
                            loop::SessionManager& sessions,
                            const raw::v1::GetDaemonInfoRequest& /*request*/,
                            raw::v1::GetDaemonInfoResponse* response) {
  response->set_version(info.version);
  response->set_protocol_version(info.protocol_version);
  response->set_pid(info.pid);
  response->set_config_path(info.config_path);
  response->set_state_dir(info.state_dir);
  response->set_socket_path(info.socket_path);
  response->set_database_path(info.database_path);
  response->set_log_path(info.log_path);
  for (const std::string& warning : info.warnings) response->add_warnings(warning);
  response->set_started_at_unix_ms(info.started_at_unix_ms);
  response->set_loaded_sessions(static_cast<int64_t>(sessions.loaded_sessions()));
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
