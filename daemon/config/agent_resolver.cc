// ResolveAgent: picks the agent a session runs and the model it talks to.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/base_url.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {
namespace {

// Models in the order automatic choice tries them: the built-in names in
// kBuiltinModelOrder, then the rest by name.
std::vector<const ModelConfig*> CandidateOrder(const Config& config) {
  std::vector<const ModelConfig*> order;
  for (absl::string_view name : kBuiltinModelOrder) {
    auto it = config.models.find(std::string(name));
    if (it != config.models.end()) order.push_back(&it->second);
  }
  for (const auto& [name, model] : config.models) {
    if (std::find(kBuiltinModelOrder.begin(), kBuiltinModelOrder.end(), name) ==
        kBuiltinModelOrder.end()) {
      order.push_back(&model);
    }
  }
  return order;
}

// A model whose key comes from `api_key` is not keyless; automatic choice
// never reads variables, so such a model is used only when an agent names it.
bool IsLocalKeyless(const ModelConfig& model) {
  return model.api_key_env.empty() && model.api_key.empty() && IsLoopbackBaseUrl(model.base_url);
}

// "a", "a or b", "a, b or c".
std::string JoinAlternatives(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? "" : items[0];
  std::vector<std::string> head(items.begin(), items.end() - 1);
  return absl::StrCat(absl::StrJoin(head, ", "), " or ", items.back());
}

// The message for an agent without a model when nothing is usable: every
// key variable that would make a model usable, every local server that
// would, every keyless remote model the agent could name, and where to
// define a model instead.
std::string NoUsableModelMessage(const Config& config, const AgentConfig& agent,
                                 const std::vector<const ModelConfig*>& candidates) {
  std::vector<std::string> keys;
  std::vector<std::string> servers;
  std::vector<std::string> remote_keyless;
  for (const ModelConfig* m : candidates) {
    if (!m->api_key_env.empty()) {
      if (std::find(keys.begin(), keys.end(), m->api_key_env) == keys.end()) {
        keys.push_back(m->api_key_env);
      }
    } else if (IsLocalKeyless(*m)) {
      servers.push_back(absl::StrCat(m->base_url, " (", ProviderDisplayName(m->provider), ")"));
    } else {
      remote_keyless.push_back(absl::StrCat("\"", m->name, "\""));
    }
  }
  std::vector<std::string> remedies;
  if (!keys.empty()) remedies.push_back(absl::StrCat("set ", JoinAlternatives(keys)));
  if (!servers.empty()) {
    remedies.push_back(
        absl::StrCat("start a local OpenAI-compatible server at ", JoinAlternatives(servers)));
  }
  if (!remote_keyless.empty()) {
    // Automatic choice never contacts a keyless server elsewhere; naming one
    // in the agent is the user's explicit choice.
    remedies.push_back(absl::StrCat("set ", JoinPath(JoinPath("agents", agent.name), "model"),
                                    " to ", JoinAlternatives(remote_keyless)));
  }
  std::string where = config.source_path.empty() ? "the config file" : config.source_path;
  std::string define = absl::StrCat("define a model in ", where);
  if (config.builtin_defaults) {
    absl::StrAppend(&define, " (raw config init writes a starting file)");
  }
  remedies.push_back(define);

  std::string text = remedies.back();
  if (remedies.size() == 2) {
    text = absl::StrCat(remedies[0], " or ", remedies[1]);
  } else if (remedies.size() > 2) {
    std::vector<std::string> head(remedies.begin(), remedies.end() - 1);
    text = absl::StrCat(absl::StrJoin(head, ", "), ", or ", remedies.back());
  }
  return absl::StrCat("no usable model for agent \"", agent.name, "\": ", text);
}

absl::StatusOr<const ModelConfig*> PickModel(const Config& config, const AgentConfig& agent,
                                             const EnvLookup& env, const ServerProbe& probe) {
  if (!agent.model.empty()) {
    auto it = config.models.find(agent.model);
    if (it == config.models.end()) {
      std::vector<std::string> names;
      for (const auto& [name, m] : config.models) names.push_back(name);
      return absl::FailedPreconditionError(absl::StrCat(
          JoinPath(JoinPath("agents", agent.name), "model"), ": ", DescribeValue(Json(agent.model)),
          " is not a defined model (defined: ", JoinNames(names), ")"));
    }
    return &it->second;
  }
  std::vector<const ModelConfig*> candidates = CandidateOrder(config);
  for (const ModelConfig* m : candidates) {
    if (m->api_key_env.empty()) continue;
    std::optional<std::string> key = env ? env(m->api_key_env) : std::nullopt;
    if (key && !key->empty()) return m;
  }
  for (const ModelConfig* m : candidates) {
    if (IsLocalKeyless(*m) && probe && probe(m->base_url)) return m;
  }
  return absl::FailedPreconditionError(NoUsableModelMessage(config, agent, candidates));
}

// The model entry a session chose instead of its agent's.
absl::StatusOr<const ModelConfig*> SessionModel(const Config& config, const std::string& name) {
  auto it = config.models.find(name);
  if (it != config.models.end()) return &it->second;
  std::vector<std::string> names;
  for (const auto& [n, m] : config.models) names.push_back(n);
  return absl::FailedPreconditionError(
      absl::StrCat("the session's model ", DescribeValue(Json(name)),
                   " is not a defined model (defined: ", JoinNames(names),
                   "); choose another one for the session, or \"\" for the agent's own"));
}

}  // namespace

absl::StatusOr<ResolvedAgent> ResolveAgent(const Config& config, const std::string& agent_name,
                                           const EnvLookup& env, const ServerProbe& probe,
                                           const std::string& model_override) {
  std::string name = agent_name.empty() ? config.default_agent : agent_name;
  if (name.empty()) name = kDefaultAgentName;
  auto agent = config.agents.find(name);
  if (agent == config.agents.end()) {
    std::vector<std::string> names;
    for (const auto& [n, a] : config.agents) names.push_back(n);
    // Built-in agents are not "in" the (missing) file.
    std::string where = config.source_path.empty() || config.builtin_defaults
                            ? ""
                            : absl::StrCat(" in ", config.source_path);
    return absl::NotFoundError(
        absl::StrCat("unknown agent \"", name, "\" (defined", where, ": ", JoinNames(names), ")"));
  }
  absl::StatusOr<const ModelConfig*> model = model_override.empty()
                                                ? PickModel(config, agent->second, env, probe)
                                                : SessionModel(config, model_override);
  if (!model.ok()) return model.status();
  if (auto error = CheckCompactFits(agent->second, **model)) {
    return absl::FailedPreconditionError(absl::StrCat(
        JoinPath(JoinPath(JoinPath("agents", name), "compact"), "trigger_tokens"), ": ", *error));
  }
  return ResolvedAgent{agent->second, **model};
}

}  // namespace raw::config
