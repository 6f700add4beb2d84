#include "daemon/loop/turn_planner.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "common/status_macros.h"
#include "daemon/context/cache_key.h"
#include "daemon/context/token_estimate.h"
#include "daemon/loop/runtime_record.h"
#include "daemon/vars/resolve_secrets.h"
#include "daemon/providers/provider_factory.h"
#include "daemon/providers/retrying_provider.h"

namespace raw::loop {
namespace {

constexpr char kLoadSkillTool[] = "builtin/load_skill";

// Skill directories are relative to the config file's directory.
std::string ConfigDir(const config::Config& cfg) {
  if (cfg.source_path.empty()) return std::filesystem::current_path().string();
  return std::filesystem::path(cfg.source_path).parent_path().string();
}

absl::StatusOr<std::vector<config::HookConfig>> SelectedHooks(const config::Config& cfg,
                                                              const config::AgentConfig& agent) {
  std::vector<config::HookConfig> hooks;
  for (const std::string& name : agent.hooks) {
    auto it = cfg.hooks.find(name);
    if (it == cfg.hooks.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "agents.", agent.name, ".hooks: \"", name, "\" is not a defined hook"));
    }
    hooks.push_back(it->second);
  }
  return hooks;
}

absl::StatusOr<std::unique_ptr<providers::Provider>> MakeRetrying(
    const config::ModelConfig& model, const TurnPlanInputs& in,
    const providers::ProviderOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<providers::Provider> provider,
                   providers::MakeProvider(model, in.http, in.env, options));
  providers::RetryPolicy retry;
  retry.max_retries = model.max_retries;
  return std::unique_ptr<providers::Provider>(std::make_unique<providers::RetryingProvider>(
      std::move(provider), retry, providers::RealBackoffWaiter(), [] {
        static thread_local std::mt19937_64 engine{std::random_device{}()};
        return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
      }));
}

}  // namespace

std::vector<std::string> NonMcpPatterns(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& p : patterns) {
    if (p.rfind("mcp/", 0) != 0) out.push_back(p);
  }
  return out;
}

absl::StatusOr<TurnPlan> BuildTurnPlan(const TurnPlanInputs& in) {
  TurnPlan plan;
  plan.session_id = in.session.id;
  plan.turn_id = NewId("turn_");
  plan.user_text = in.user_text;
  plan.cwd = in.session.cwd;
  plan.tool_settings = in.config.tools;
  plan.http = &in.http;
  ASSIGN_OR_RETURN(plan.agent,
                   config::ResolveAgent(in.config, in.session.agent, in.env, in.probe));
  const config::AgentConfig& agent = plan.agent.agent;
  std::vector<std::string> registry_patterns = NonMcpPatterns(agent.tools_use);
  std::vector<const tools::ToolSpec*> selected;
  if (!registry_patterns.empty()) {
    ASSIGN_OR_RETURN(selected, in.tools.Select(registry_patterns));
  }
  if (in.mcp != nullptr && registry_patterns.size() < agent.tools_use.size()) {
    mcp::McpSelection mcp = in.mcp->Select(
        agent.tools_use, in.config.mcp_servers, [&in](const std::string& text) {
          if (in.variables == nullptr) return absl::StatusOr<std::string>(text);
          return in.variables->Expand(text, in.config.variables);
        });
    for (auto& spec : mcp.tools) {
      plan.owned_tools.push_back(std::make_unique<tools::ToolSpec>(std::move(spec)));
      selected.push_back(plan.owned_tools.back().get());
    }
    plan.notices = std::move(mcp.notices);
  }
  for (const tools::ToolSpec* spec : selected) {
    // Without skills, load_skill has nothing to load: the model never sees it.
    if (spec->qualified_name == kLoadSkillTool && agent.skills.empty()) continue;
    plan.tools[spec->model_name] = spec;
    plan.tool_definitions.push_back({spec->model_name, spec->description, spec->input_schema});
  }
  ASSIGN_OR_RETURN(plan.rules, tools::policy::RuleSet::Compile(
                                   agent.rules, absl::StrCat("agents.", agent.name, ".rules")));
  ASSIGN_OR_RETURN(plan.hooks, SelectedHooks(in.config, agent));
  if (!agent.skills.empty()) {
    absl::StatusOr<skills::SkillSet> skills =
        skills::SkillSet::Load(in.config.skill_dirs, ConfigDir(in.config), agent.skills);
    if (!skills.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("agents.", agent.name, ".skills: ", skills.status().message()));
    }
    plan.skills = std::move(*skills);
    plan.agent.agent.system_prompt += plan.skills.PromptSection();
  }

  plan.runtime_tokens =
      context::EstimateRuntimeTokens(plan.agent.agent.system_prompt, plan.tool_definitions);
  plan.tools_hash = ToolsHash(plan.tool_definitions);
  for (const auto& def : plan.tool_definitions) plan.tool_names.push_back(def.name);
  std::sort(plan.tool_names.begin(), plan.tool_names.end());

  if (!in.with_providers) return plan;
  providers::ProviderOptions options;
  if (in.variables != nullptr) {
    ASSIGN_OR_RETURN(vars::ResolvedSecrets secrets,
                     vars::ResolveModelSecrets(plan.agent.model, in.config, *in.variables, in.env));
    options.api_key = std::move(secrets.api_key);
    options.headers = std::move(secrets.headers);
  }
  options.prompt_cache_key = context::PromptCacheKeyFor(
      plan.agent.model, in.session.id, plan.agent.agent.system_prompt, plan.tool_definitions);
  ASSIGN_OR_RETURN(plan.provider, MakeRetrying(plan.agent.model, in, options));
  // Summaries get their own output cap; the request has no tools.
  config::ModelConfig summary_model = plan.agent.model;
  summary_model.max_output_tokens = agent.compact.max_output_tokens;
  ASSIGN_OR_RETURN(plan.summarizer, MakeRetrying(summary_model, in, options));
  return plan;
}

}  // namespace raw::loop
