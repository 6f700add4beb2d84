// BuiltinDefaults: what Raw uses when there is no config file, and the
// per-field defaults that fill in what a config file leaves out. The Config
// itself is built by BuiltinDefaults() (declared in config_loader.h).
// Constants and pure functions; thread-safe.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace raw::config {

inline constexpr char kDefaultAgentName[] = "default";

// Names of the built-in models in the order automatic model choice tries
// them (see ResolveAgent).
inline constexpr std::array<absl::string_view, 5> kBuiltinModelOrder = {
    "openai", "anthropic", "gemini", "deepseek", "ollama"};

// The system prompt of an agent that sets none.
std::string DefaultSystemPrompt();

// agents.<name>.tools.use when an agent leaves it out.
std::vector<std::string> DefaultToolsUse();

// Defaults of models.<name>.system_role and max_tokens_field: OpenAI's own
// service takes "developer" and "max_completion_tokens"; compatible servers
// (DeepSeek, Ollama, llama-server, ...) take "system" and "max_tokens".
std::string DefaultSystemRole(absl::string_view provider);
std::string DefaultMaxTokensField(absl::string_view provider);

// The provider label for a model that sets none, from its base URL:
// "openai", "deepseek", "anthropic" or "google" for those services' hosts
// (*.openai.com, *.deepseek.com, *.anthropic.com, *.googleapis.com; each
// offers an OpenAI-compatible endpoint), "ollama" for port 11434 on this
// machine, "local" for other servers on this machine, else the host name.
// `base_url` must be valid (see ParseBaseUrl).
std::string DeriveProviderLabel(absl::string_view base_url);

// How messages name a provider label: "OpenAI", "DeepSeek", "Ollama", ...;
// other labels as they are.
std::string ProviderDisplayName(absl::string_view provider);

}  // namespace raw::config
