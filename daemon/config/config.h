// Config: the validated form of config.json. Plain values; the loader
// (config_loader.h) builds them and nothing else mutates them.
//
// Field names follow the product spec: models.<name>.{provider, method,
// model_id, base_url, api_key_env, context_window_tokens} and
// agents.<name>.{model, tools.use}. docs/config.md documents every field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace raw::config {

inline constexpr char kMethodOpenAiChat[] = "openai-chat-completions";

struct ModelConfig {
  std::string name;         // the key under "models"
  std::string provider;     // a label: "openai", "deepseek", "ollama", ...
  std::string method;       // wire API; see kMethod*
  std::string model_id;     // the provider's model name
  std::string base_url;     // e.g. "https://api.openai.com/v1"
  std::string api_key_env;  // env var holding the key; empty = no key sent
  std::optional<int64_t> context_window_tokens;
  std::optional<int64_t> max_output_tokens;
  // openai-chat-completions: role of the system prompt ("system" or
  // "developer") and the name of the output cap field ("max_tokens" or
  // "max_completion_tokens"); defaults depend on the provider label.
  std::string system_role = "system";
  std::string max_tokens_field = "max_tokens";
  // Longest silence between stream events before the request fails.
  int64_t idle_timeout_ms = 300000;
  int64_t connect_timeout_ms = 15000;
};

struct AgentConfig {
  std::string name;   // the key under "agents"
  std::string model;  // a key of Config::models; empty = pick automatically
  std::string system_prompt;
  int max_steps = 50;
  // Exact qualified tool names or globs ("builtin/*").
  std::vector<std::string> tools_use;
};

struct BashSettings {
  int64_t timeout_ms = 120000;
  int64_t max_output_bytes = 30000;
};

struct FileSettings {
  int64_t max_read_bytes = 256 * 1024;
};

struct ToolSettings {
  BashSettings bash;
  FileSettings files;
};

struct Config {
  std::map<std::string, ModelConfig> models;
  std::map<std::string, AgentConfig> agents;
  std::string default_agent;
  ToolSettings tools;
  // True when no config file existed and the built-in defaults apply.
  bool builtin_defaults = false;
};

}  // namespace raw::config
