// BuildTurnPlan: resolves everything a turn needs from the config as it is
// now (the agent, its model and provider with its resolved key and headers,
// the selected tools — built-in ones from the registry, `mcp/...` ones from
// the MCP manager, which starts their servers if needed —, rules, hooks and
// skills), so that a config problem is reported when the turn is requested,
// before anything is recorded. MCP servers that cannot start become notices
// of the turn, not errors. The system prompt is the agent's, then the
// selected registry tools' prompt sections (ToolSpec::prompt_section), then
// the selected skills' listing; the prompt-cache key derives from the
// result (see daemon/context/cache_key.h). Pure apart from reading skill
// files; thread-safe.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/http/http_client.h"
#include "daemon/loop/turn.h"
#include "daemon/mcp/mcp_manager.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"
#include "daemon/vars/variable_store.h"

namespace raw::loop {

struct TurnPlanInputs {
  const config::Config& config;
  const store::SessionRecord& session;
  std::string user_text;
  const tools::ToolRegistry& tools;
  http::HttpClient& http;
  const EnvLookup& env;
  const config::ServerProbe& probe;
  // False: resolve only what the model would see (prompt, tools, skills,
  // estimate); no providers are made, so no key is needed (/clear, the
  // context estimate of GetSession).
  bool with_providers = true;
  // Variables for API keys and headers (null = none can be used), and the
  // MCP connections for `mcp/...` entries of tools.use (null = none).
  vars::VariableStore* variables = nullptr;
  mcp::McpManager* mcp = nullptr;
  // The session's own MCP servers (McpServerConfig::session_id set), by
  // name: selected by the agent's tools.use like those under mcp_servers.
  // One whose name a configured server has taken since is left out with a
  // notice.
  std::map<std::string, config::McpServerConfig> session_mcp_servers{};
  // With providers: leave MCP tools to TurnPlan::attach_mcp instead of
  // selecting (and perhaps starting servers) here.
  bool defer_mcp = false;
  // Ends the wait for MCP servers to start when MCP tools are selected here
  // (not deferred): the daemon's stop (null: none). The plan is then
  // kCancelled.
  const CancelToken* cancel = nullptr;
  // Where builtin/raven_task and builtin/web_search read their settings;
  // null = config.raven as it is (config::FixedRavenSettings). An override
  // layer (a settings store) passes its own source here.
  std::shared_ptr<const config::RavenSettingsSource> raven_settings = nullptr;
  // Whether the packages the agent uses are re-hashed (package_resolver.h):
  // kTrust only for a plan that runs and stores nothing (an estimate).
  packages::EntryCheck package_check = packages::EntryCheck::kRehash;
};

// The entries of tools.use that name registry tools (not `mcp/...` or
// `pkg/...`).
std::vector<std::string> NonMcpPatterns(const std::vector<std::string>& patterns);

absl::StatusOr<TurnPlan> BuildTurnPlan(const TurnPlanInputs& in);

}  // namespace raw::loop
