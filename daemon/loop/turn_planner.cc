#include "daemon/loop/turn_planner.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "common/status_macros.h"
#include "daemon/config/named_paths.h"
#include "daemon/config/raven_entry.h"
#include "daemon/config/withheld_env.h"
#include "daemon/context/cache_key.h"
#include "daemon/context/summary_model.h"
#include "daemon/context/token_estimate.h"
#include "daemon/loop/runtime_record.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/providers/provider_factory.h"
#include "daemon/providers/retrying_provider.h"
#include "daemon/raven/draft/provider_draft_generator.h"
#include "daemon/tools/policy/protected_paths.h"
#include "daemon/vars/resolve_secrets.h"

namespace raw::loop {
namespace {

constexpr char kLoadSkillTool[] = "builtin/load_skill";
constexpr char kWebSearchTool[] = "builtin/web_search";

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

// The Raven and web search parts of the plan: the settings source, the
// variable resolver and (with providers) the Draft Variant generator, whose
// routes get a provider each from their entry under `models`, with that
// model's key and headers, no retries, and the draft output cap.
void AddRavenServices(TurnPlan& plan, const TurnPlanInputs& in) {
  plan.raven_settings = in.raven_settings != nullptr
                            ? in.raven_settings
                            : std::make_shared<config::FixedRavenSettings>(in.config.raven);
  if (in.variables != nullptr) {
    plan.resolve_variable = [variables = in.variables, defined = in.config.variables](
                                const std::string& name) -> absl::StatusOr<std::string> {
      auto it = defined.find(name);
      if (it == defined.end()) {
        return absl::NotFoundError(absl::StrCat("variable ", name, " is not defined"));
      }
      return variables->Value(it->second);
    };
  }
  if (!in.with_providers) return;
  auto factory = [cfg = std::make_shared<const config::Config>(in.config), http = &in.http,
                  env = in.env, variables = in.variables](const std::string& route,
                                                          int64_t max_output_tokens)
      -> absl::StatusOr<std::unique_ptr<providers::Provider>> {
    std::optional<std::string> name = config::ModelForRoute(*cfg, route);
    if (!name) {
      return absl::FailedPreconditionError(
          absl::StrCat("no entry under models is \"", route, "\""));
    }
    config::ModelConfig model = cfg->models.at(*name);
    model.max_output_tokens = max_output_tokens;
    providers::ProviderOptions options;
    if (variables != nullptr) {
      ASSIGN_OR_RETURN(vars::ResolvedSecrets secrets,
                       vars::ResolveModelSecrets(model, *cfg, *variables, env));
      options.api_key = std::move(secrets.api_key);
      options.headers = std::move(secrets.headers);
    }
    return providers::MakeProvider(model, *http, env, options);
  };
  plan.drafter = std::make_shared<raven::draft::ProviderDraftGenerator>(*plan.raven_settings,
                                                                        std::move(factory));
}

// Adds `spec` (owned by the registry or by plan.owned_tools) to the tools
// the model sees.
void AddTool(TurnPlan& plan, const tools::ToolSpec* spec) {
  plan.tools[spec->model_name] = spec;
  plan.tool_definitions.push_back({spec->model_name, spec->description, spec->input_schema});
}

// runtime_tokens, tools_hash and tool_names from the prompt and definitions.
void SummarizeTools(TurnPlan& plan) {
  plan.runtime_tokens =
      context::EstimateRuntimeTokens(plan.agent.agent.system_prompt, plan.tool_definitions);
  plan.tools_hash = ToolsHash(plan.tool_definitions);
  plan.tool_names.clear();
  for (const auto& def : plan.tool_definitions) plan.tool_names.push_back(def.name);
  std::sort(plan.tool_names.begin(), plan.tool_names.end());
}

// The agent's provider and its summarizer, keyed for the plan's prompt and
// tool definitions.
absl::Status MakeProviders(TurnPlan& plan, const TurnPlanInputs& in,
                           providers::ProviderOptions options) {
  options.prompt_cache_key = context::PromptCacheKeyFor(
      plan.agent.model, plan.session_id, plan.agent.agent.system_prompt, plan.tool_definitions);
  ASSIGN_OR_RETURN(plan.provider, MakeRetrying(plan.agent.model, in, options));
  // Summaries get their own output cap (with room for reasoning on a model
  // that reasons) and the lowest reasoning effort; the request has no tools.
  config::ModelConfig summary_model =
      context::SummaryModel(plan.agent.model, plan.agent.agent.compact.max_output_tokens);
  ASSIGN_OR_RETURN(plan.summarizer, MakeRetrying(summary_model, in, options));
  return absl::OkStatus();
}

// Selects the MCP tools of `tools_use` (starting servers as needed) and
// adds them to the plan with the selection's notices (with `start` false:
// only the tools of servers already listed, nothing started, no notices; see
// McpManager::Select). Servers with `roots`
// get the session's working directory as their root.
// kCancelled when `cancel` ended the wait for servers to start.
absl::Status AddMcpTools(TurnPlan& plan, mcp::McpManager& manager,
                         const std::vector<std::string>& tools_use, const config::Config& cfg,
                         const std::map<std::string, config::McpServerConfig>& session_servers,
                         vars::VariableStore* variables, bool start,
                         const CancelToken* cancel = nullptr) {
  std::map<std::string, config::McpServerConfig> servers = cfg.mcp_servers;
  for (const auto& [name, server] : session_servers) {
    if (servers.emplace(name, server).second) continue;
    if (start) {
      plan.notices.push_back(absl::StrCat("the session's MCP server \"", name,
                                          "\" is left out: a configured server now has its name"));
    }
  }
  mcp::McpSelection mcp =
      manager.Select(
          tools_use, servers,
          [&](const std::string& text) {
            if (variables == nullptr) return absl::StatusOr<std::string>(text);
            return variables->Expand(text, cfg.variables);
          },
          plan.cwd, start, cancel);
  if (mcp.cancelled) {
    return absl::CancelledError(
        absl::StrCat("interrupted while MCP servers were starting (", cancel->reason(), ")"));
  }
  for (auto& spec : mcp.tools) {
    plan.owned_tools.push_back(std::make_unique<tools::ToolSpec>(std::move(spec)));
    AddTool(plan, plan.owned_tools.back().get());
  }
  for (std::string& notice : mcp.notices) plan.notices.push_back(std::move(notice));
  if (mcp.unknown_tools) plan.runtime_partial = true;
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> NonMcpPatterns(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& p : patterns) {
    // pkg/ entries are MCP tools too, once packages::ResolvePackages ran.
    if (p.rfind("mcp/", 0) != 0 && p.rfind("pkg/", 0) != 0) out.push_back(p);
  }
  return out;
}

namespace {

// BuildTurnPlan once the agent's package exports are applied to in.config.
absl::StatusOr<TurnPlan> BuildResolvedPlan(const TurnPlanInputs& in) {
  TurnPlan plan;
  plan.session_id = in.session.id;
  plan.turn_id = NewId("turn_");
  plan.user_text = in.user_text;
  plan.cwd = in.session.cwd;
  plan.tool_settings = in.config.tools;
  plan.http = &in.http;
  ASSIGN_OR_RETURN(plan.agent,
                   config::ResolveAgent(in.config, in.session.agent, in.env, in.probe,
                                        in.session.model));
  const config::AgentConfig& agent = plan.agent.agent;
  std::vector<std::string> registry_patterns = NonMcpPatterns(agent.tools_use);
  std::vector<const tools::ToolSpec*> selected;
  if (!registry_patterns.empty()) {
    ASSIGN_OR_RETURN(selected, in.tools.Select(registry_patterns));
  }
  AddRavenServices(plan, in);
  const bool has_search_backend =
      plan.raven_settings->Current().search.backend != config::SearchBackendKind::kNone;
  for (const tools::ToolSpec* spec : selected) {
    // Without skills, load_skill has nothing to load: the model never sees it.
    if (spec->qualified_name == kLoadSkillTool && agent.skills.empty()) continue;
    // Without a search backend, neither has web_search.
    if (spec->qualified_name == kWebSearchTool && !has_search_backend) continue;
    AddTool(plan, spec);
    plan.agent.agent.system_prompt += spec->prompt_section;
  }
  const bool selects_mcp = in.mcp != nullptr && registry_patterns.size() < agent.tools_use.size();
  const bool defer_mcp = selects_mcp && in.defer_mcp && in.with_providers;
  if (selects_mcp && !defer_mcp) {
    // Without providers nothing runs: only servers already listed count.
    RETURN_IF_ERROR(AddMcpTools(plan, *in.mcp, agent.tools_use, in.config, in.session_mcp_servers,
                                in.variables, in.with_providers, in.cancel));
  }
  ASSIGN_OR_RETURN(plan.rules, tools::policy::RuleSet::Compile(
                                   agent.rules, absl::StrCat("agents.", agent.name, ".rules")));
  RETURN_IF_ERROR(plan.rules.PrependRules(tools::policy::ProtectedPathRules(
      tools::policy::ProtectedPaths(in.config, in.env), agent)));
  plan.tool_settings.web_fetch.allow_private_addresses = agent.allow_private_addresses;
  ASSIGN_OR_RETURN(plan.hooks, SelectedHooks(in.config, agent));
  plan.withheld_env = config::WithheldEnvFor(in.config, agent);
  if (!agent.skills.empty()) {
    absl::StatusOr<skills::SkillSet> skills =
        skills::SkillSet::Load(in.config.skill_dirs, config::SkillBaseDir(in.config), agent.skills);
    if (!skills.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("agents.", agent.name, ".skills: ", skills.status().message()));
    }
    plan.skills = std::move(*skills);
    plan.agent.agent.system_prompt += plan.skills.PromptSection();
  }

  SummarizeTools(plan);

  if (!in.with_providers) return plan;
  providers::ProviderOptions options;
  if (in.variables != nullptr) {
    // Any model's key, not only this agent's, is kept out of what is stored.
    vars::NoteModelKeys(in.config, *in.variables, in.env);
    // A secret passed to commands (pass_secret_env) is redacted from what
    // they print, also when no reference reads it.
    vars::NoteSecretEnvVariables(in.config, *in.variables, in.env);
    ASSIGN_OR_RETURN(vars::ResolvedSecrets secrets,
                     vars::ResolveModelSecrets(plan.agent.model, in.config, *in.variables, in.env));
    options.api_key = std::move(secrets.api_key);
    options.headers = std::move(secrets.headers);
  }
  // Made now even when MCP tools follow, so that an unusable model fails
  // the StartTurn call rather than the turn.
  RETURN_IF_ERROR(MakeProviders(plan, in, options));
  if (defer_mcp) {
    plan.attach_mcp = [manager = in.mcp, cfg = in.config, session = in.session, tools = &in.tools,
                       http = &in.http, env = in.env, probe = in.probe, variables = in.variables,
                       session_servers = in.session_mcp_servers,
                       options](TurnPlan& p, const CancelToken& cancel) -> absl::Status {
      RETURN_IF_ERROR(AddMcpTools(p, *manager, p.agent.agent.tools_use, cfg, session_servers,
                                  variables, /*start=*/true, &cancel));
      SummarizeTools(p);
      TurnPlanInputs again{cfg, session, p.user_text, *tools, *http, env, probe};
      return MakeProviders(p, again, options);
    };
  }
  return plan;
}

}  // namespace

absl::StatusOr<TurnPlan> BuildTurnPlan(const TurnPlanInputs& in) {
  ASSIGN_OR_RETURN(
      packages::PackagedConfig packaged,
      packages::ResolvePackages(in.config, in.session.agent, in.env, in.package_check));
  TurnPlanInputs resolved{.config = packaged.config,
                          .session = in.session,
                          .user_text = in.user_text,
                          .tools = in.tools,
                          .http = in.http,
                          .env = in.env,
                          .probe = in.probe,
                          .with_providers = in.with_providers,
                          .variables = in.variables,
                          .mcp = in.mcp,
                          .session_mcp_servers = in.session_mcp_servers,
                          .defer_mcp = in.defer_mcp,
                          .cancel = in.cancel,
                          .raven_settings = in.raven_settings,
                          .package_check = in.package_check};
  ASSIGN_OR_RETURN(TurnPlan plan, BuildResolvedPlan(resolved));
  plan.packages = std::move(packaged.packages);
  return plan;
}

}  // namespace raw::loop
