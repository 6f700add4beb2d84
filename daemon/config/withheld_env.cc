#include "daemon/config/withheld_env.h"

#include "absl/strings/str_cat.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

std::set<std::string> WithheldEnvNames(const Config& config) {
  std::set<std::string> names;
  for (const auto& [name, model] : config.models) {
    if (!model.api_key_env.empty()) names.insert(model.api_key_env);
  }
  for (const auto& [name, variable] : config.variables) {
    if (variable.source == VariableSource::kEnv && variable.secret && !variable.env.empty()) {
      names.insert(variable.env);
    }
  }
  return names;
}

std::set<std::string> WithheldEnvFor(const Config& config, const AgentConfig& agent) {
  std::set<std::string> names = WithheldEnvNames(config);
  for (const std::string& passed : agent.pass_secret_env) names.erase(passed);
  return names;
}

void CheckPassSecretEnv(const Config& config, std::vector<ConfigProblem>& problems) {
  const std::set<std::string> withheld = WithheldEnvNames(config);
  for (const auto& [name, agent] : config.agents) {
    if (ProblemsFull(problems)) break;
    for (size_t i = 0; i < agent.pass_secret_env.size(); ++i) {
      if (ProblemsFull(problems)) break;
      if (withheld.contains(agent.pass_secret_env[i])) continue;
      problems.push_back(
          {IndexPath(JoinPath(JoinPath("agents", name), "pass_secret_env"), i),
           absl::StrCat("\"", agent.pass_secret_env[i],
                        "\" is not withheld from commands (only the variables named by a "
                        "model's api_key_env and by secret variables with \"env\" are), so "
                        "there is nothing to pass")});
    }
  }
}

}  // namespace raw::config
