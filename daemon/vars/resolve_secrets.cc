#include "daemon/vars/resolve_secrets.h"

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace raw::vars {
namespace {

absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

// `text` expanded for an HTTP header; `context` ("model m: headers.X-A")
// starts every error.
absl::StatusOr<std::string> ExpandForHeader(const std::string& text, const config::Config& config,
                                            VariableStore& store, absl::string_view context) {
  absl::StatusOr<std::string> value = store.Expand(text, config.variables);
  if (!value.ok()) return WithContext(value.status(), context);
  if (value->find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
    return absl::FailedPreconditionError(
        absl::StrCat(context,
                     ": the value contains a line break or NUL after expanding its "
                     "variables"));
  }
  return value;
}

}  // namespace

absl::StatusOr<ResolvedSecrets> ResolveModelSecrets(const config::ModelConfig& model,
                                                    const config::Config& config,
                                                    VariableStore& store, const EnvLookup& env) {
  ResolvedSecrets resolved;
  std::string prefix = absl::StrCat("model ", model.name);
  if (!model.api_key.empty()) {
    absl::StatusOr<std::string> key =
        ExpandForHeader(model.api_key, config, store, absl::StrCat(prefix, ": api_key"));
    if (!key.ok()) return key.status();
    if (key->empty()) {
      return absl::FailedPreconditionError(absl::StrCat(prefix, ": api_key is empty"));
    }
    store.NoteSecret(*key);
    resolved.api_key = *std::move(key);
  } else if (!model.api_key_env.empty()) {
    std::optional<std::string> key = env ? env(model.api_key_env) : std::nullopt;
    if (!key.has_value() || key->empty()) {
      std::string owner = model.provider.empty() ? model.base_url : model.provider;
      return absl::FailedPreconditionError(
          absl::StrCat(prefix, ": environment variable ", model.api_key_env,
                       " is not set (it holds the API key for ", owner, ")"));
    }
    store.NoteSecret(*key);
    resolved.api_key = *std::move(key);
  }
  for (const auto& [name, text] : model.headers) {
    absl::StatusOr<std::string> value =
        ExpandForHeader(text, config, store, absl::StrCat(prefix, ": headers.", name));
    if (!value.ok()) return value.status();
    resolved.headers.emplace_back(name, *std::move(value));
  }
  return resolved;
}

void NoteModelKeys(const config::Config& config, VariableStore& store, const EnvLookup& env) {
  for (const auto& [name, model] : config.models) {
    if (!model.api_key.empty()) {
      // A key with variable references is recorded when it is expanded.
      if (model.api_key.find("${") == std::string::npos) store.NoteSecret(model.api_key);
    } else if (!model.api_key_env.empty() && env) {
      if (std::optional<std::string> key = env(model.api_key_env); key.has_value()) {
        store.NoteSecret(*key);
      }
    }
  }
}

void NoteSecretEnvVariables(const config::Config& config, VariableStore& store,
                            const EnvLookup& env) {
  if (!env) return;
  for (const auto& [name, variable] : config.variables) {
    if (variable.source != config::VariableSource::kEnv || !variable.secret) continue;
    if (std::optional<std::string> value = env(variable.env); value.has_value()) {
      store.NoteSecret(*value);
    }
  }
}

absl::StatusOr<ResolvedMcpSecrets> ResolveMcpServerSecrets(const config::McpServerConfig& server,
                                                           const config::Config& config,
                                                           VariableStore& store) {
  ResolvedMcpSecrets resolved;
  std::string prefix = absl::StrCat("MCP server ", server.name);
  for (const auto& [name, text] : server.env) {
    absl::StatusOr<std::string> value = store.Expand(text, config.variables);
    if (!value.ok()) return WithContext(value.status(), absl::StrCat(prefix, ": env.", name));
    if (value->find('\0') != std::string::npos) {
      return absl::FailedPreconditionError(absl::StrCat(
          prefix, ": env.", name, ": the value contains NUL after expanding its variables"));
    }
    resolved.env[name] = *std::move(value);
  }
  for (const auto& [name, text] : server.headers) {
    absl::StatusOr<std::string> value =
        ExpandForHeader(text, config, store, absl::StrCat(prefix, ": headers.", name));
    if (!value.ok()) return value.status();
    resolved.headers.emplace_back(name, *std::move(value));
  }
  return resolved;
}

}  // namespace raw::vars
