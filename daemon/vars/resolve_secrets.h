// ResolveModelSecrets / ResolveMcpServerSecrets: the config fields that may
// reference variables, expanded for use: a model's API key and headers (for
// providers::ProviderOptions), an MCP server's environment and headers.
//
// Errors name the model or server and the field, and the variable when one
// could not be read; never a value. A resolved API key is recorded as a
// secret (VariableStore::NoteSecret) for redaction. Values are read through the store, so
// each is read once per daemon lifetime (see variable_store.h).
// Thread-safety: as VariableStore; `env` is called on the calling thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/paths.h"
#include "daemon/config/config.h"
#include "daemon/vars/variable_store.h"

namespace raw::vars {

struct ResolvedSecrets {
  // models.<n>.api_key expanded, else the value of models.<n>.api_key_env;
  // nullopt when the model sets neither (no key is sent).
  std::optional<std::string> api_key;
  // models.<n>.headers expanded, ordered by name.
  std::vector<std::pair<std::string, std::string>> headers;
};

// An unset api_key_env variable is kFailedPrecondition, as MakeProvider
// reports it; an api_key or header value that expands to nothing or to text
// with a line break or NUL is kFailedPrecondition too (it goes in an HTTP
// header).
absl::StatusOr<ResolvedSecrets> ResolveModelSecrets(const config::ModelConfig& model,
                                                    const config::Config& config,
                                                    VariableStore& store, const EnvLookup& env);

// Records with store.NoteSecret the API key of every configured model that
// takes it from the environment (api_key_env, when set) or writes it in
// the config without variables, so that a tool that prints one (`env`, a
// config file) never gets it stored. Reads no variable.
void NoteModelKeys(const config::Config& config, VariableStore& store, const EnvLookup& env);

// Records the value of every secret variable that comes from the
// environment ("env"), whether or not a reference reads it: an agent's
// pass_secret_env hands it to commands, which may print it. Reads no
// variable command or file.
void NoteSecretEnvVariables(const config::Config& config, VariableStore& store,
                            const EnvLookup& env);

struct ResolvedMcpSecrets {
  std::map<std::string, std::string> env;                    // mcp_servers.<n>.env expanded
  std::vector<std::pair<std::string, std::string>> headers;  // mcp_servers.<n>.headers expanded
};

absl::StatusOr<ResolvedMcpSecrets> ResolveMcpServerSecrets(const config::McpServerConfig& server,
                                                           const config::Config& config,
                                                           VariableStore& store);

}  // namespace raw::vars
