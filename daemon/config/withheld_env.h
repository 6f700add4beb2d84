// Which environment variables of the daemon the commands it runs for a
// session (the bash tool, hooks, command variables) do not get: every name
// a model's api_key_env reads and the variable of every environment-sourced
// secret variable. MCP servers are separate: they get only the environment
// their config lists.
//
// An agent gives a withheld variable back to its commands by naming it in
// `pass_secret_env` (CheckPassSecretEnv refuses names that are not
// withheld, so a typo does not go unnoticed).
//
// Pure functions; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

// The names withheld from every command run for any agent of `config`.
std::set<std::string> WithheldEnvNames(const Config& config);

// WithheldEnvNames minus what `agent` passes back (pass_secret_env).
std::set<std::string> WithheldEnvFor(const Config& config, const AgentConfig& agent);

// agents.<name>.pass_secret_env[i] that names no withheld variable.
void CheckPassSecretEnv(const Config& config, std::vector<ConfigProblem>& problems);

}  // namespace raw::config
