#include "daemon/loop/turn_planner.h"

#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "common/status_macros.h"
#include "daemon/context/cache_key.h"
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

}  // namespace

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
  ASSIGN_OR_RETURN(std::vector<const tools::ToolSpec*> selected, in.tools.Select(agent.tools_use));
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

  providers::ProviderOptions options;
  options.prompt_cache_key = context::PromptCacheKeyFor(
      plan.agent.model, in.session.id, plan.agent.agent.system_prompt, plan.tool_definitions);
  ASSIGN_OR_RETURN(std::unique_ptr<providers::Provider> provider,
                   providers::MakeProvider(plan.agent.model, in.http, in.env, options));
  providers::RetryPolicy retry;
  retry.max_retries = plan.agent.model.max_retries;
  plan.provider = std::make_unique<providers::RetryingProvider>(
      std::move(provider), retry, providers::RealBackoffWaiter(), [] {
        static thread_local std::mt19937_64 engine{std::random_device{}()};
        return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
      });
  return plan;
}

}  // namespace raw::loop
