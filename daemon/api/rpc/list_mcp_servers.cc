// ListMcpServers: the daemon's worker pool describes the servers
// (SessionManager::ListMcpServers reads the package store entries their
// definitions come from); the call finishes from there.
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {
namespace {

raw::v1::McpServerState ToProto(mcp::ServerState state) {
  switch (state) {
    case mcp::ServerState::kStopped:
      return raw::v1::MCP_SERVER_STATE_STOPPED;
    case mcp::ServerState::kStarting:
      return raw::v1::MCP_SERVER_STATE_STARTING;
    case mcp::ServerState::kReady:
      return raw::v1::MCP_SERVER_STATE_READY;
    case mcp::ServerState::kFailed:
      return raw::v1::MCP_SERVER_STATE_FAILED;
  }
  return raw::v1::MCP_SERVER_STATE_UNSPECIFIED;
}

}  // namespace

UnaryReactor* ListMcpServers(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                             const raw::v1::ListMcpServersRequest& /*request*/,
                             raw::v1::ListMcpServersResponse* response) {
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.ListMcpServers(
      [reactor, response](absl::StatusOr<std::vector<mcp::McpServerStatus>> servers) {
        if (!servers.ok()) {
          FinishWith(reactor, servers.status());
          return;
        }
        for (const mcp::McpServerStatus& status : *servers) {
          raw::v1::McpServerInfo* info = response->add_servers();
          info->set_name(status.name);
          info->set_transport(status.transport);
          info->set_endpoint(status.endpoint);
          info->set_state(ToProto(status.state));
          info->set_last_error(status.last_error);
          info->set_protocol_version(status.protocol_version);
          for (const std::string& tool : status.tools) info->add_tools(tool);
          info->set_consecutive_failures(status.consecutive_failures);
          info->set_root(status.root_dir);
          info->set_session_id(status.session_id);
        }
        FinishWith(reactor, absl::OkStatus());
      });
  return reactor;
}

}  // namespace raw::api::rpc
