#include "daemon/api/rpc/handlers.h"
#include "daemon/config/approval_mode_names.h"

namespace raw::api::rpc {

UnaryReactor* ListAgents(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                         const raw::v1::ListAgentsRequest& /*request*/,
                         raw::v1::ListAgentsResponse* response) {
  absl::StatusOr<loop::AgentCatalog> catalog = sessions.ListAgents();
  if (!catalog.ok()) return ReturnStatus(ctx, catalog.status());
  for (const config::AgentConfig& agent : catalog->agents) {
    raw::v1::AgentInfo* info = response->add_agents();
    info->set_name(agent.name);
    info->set_model(agent.model);
    info->set_is_default(agent.name == catalog->default_agent);
    info->set_approval_mode(std::string(config::ApprovalModeName(agent.approval_mode)));
    for (const std::string& tool : agent.tools_use) info->add_tools(tool);
    for (const std::string& skill : agent.skills) info->add_skills(skill);
    info->set_extends(agent.extends);
    for (const std::string& prompt : agent.prompts) info->add_prompts(prompt);
  }
  return ReturnStatus(ctx, absl::OkStatus());
}

}  // namespace raw::api::rpc
