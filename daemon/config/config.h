// Config: the validated form of config.json. Plain values; the loader
// (config_loader.h) builds them and nothing else mutates them.
//
// Field names follow the product spec: models.<name>.{provider, method,
// model_id, base_url, api_key_env, context_window_tokens, cache.*} and
// agents.<name>.{model, tools.use, compact.*}. docs/config.md documents every
// field. Thread-safety: plain values, safe to copy and to read from any
// thread once built.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace raw::config {

// Wire APIs; the loader accepts each of these (see kSupportedMethods).
inline constexpr char kMethodOpenAiChat[] = "openai-chat-completions";
inline constexpr char kMethodOpenAiResponses[] = "openai-responses";
inline constexpr char kMethodAnthropicMessages[] = "anthropic-messages";
inline constexpr char kMethodGoogleGenerateContent[] = "google-generate-content";

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
  // cache.key: an explicit prompt-cache key, sent instead of the key Raw
  // derives for the session (the OpenAI methods send it as
  // "prompt_cache_key"). Unset = the derived key.
  std::optional<std::string> cache_key;
  // cache.retention: lifetime of Anthropic's cache_control marker, "5m" or
  // "1h". Only anthropic-messages models may set it; others keep "5m".
  std::string cache_retention = "5m";
  // How many times a retryable error before any output is retried (0..10).
  int max_retries = 4;
  // openai-chat-completions only (reasoning_content: "send"): pass the
  // reasoning text back as "reasoning_content" on assistant messages that
  // made tool calls, as DeepSeek's thinking-mode models require.
  bool send_reasoning_content = false;

  bool operator==(const ModelConfig&) const = default;
};

// agents.<name>.compact: when and how the model context is summarized.
struct CompactSettings {
  // Estimated input size that starts automatic compaction; unset = manual
  // (/compact) only. The loader checks it fits the model's window.
  std::optional<int64_t> trigger_tokens;
  int keep_recent_turns = 2;        // most recent complete turns kept verbatim
  int64_t max_output_tokens = 512;  // cap on the summary response

  bool operator==(const CompactSettings&) const = default;
};

struct AgentConfig {
  std::string name;   // the key under "agents"
  std::string model;  // a key of Config::models; empty = pick automatically
  std::string system_prompt;
  int max_steps = 50;
  // Exact qualified tool names or globs ("builtin/*").
  std::vector<std::string> tools_use;
  CompactSettings compact;

  bool operator==(const AgentConfig&) const = default;
};

struct BashSettings {
  int64_t timeout_ms = 120000;
  int64_t max_output_bytes = 30000;

  bool operator==(const BashSettings&) const = default;
};

struct FileSettings {
  int64_t max_read_bytes = 256 * 1024;

  bool operator==(const FileSettings&) const = default;
};

struct ToolSettings {
  BashSettings bash;
  FileSettings files;

  bool operator==(const ToolSettings&) const = default;
};

struct Config {
  std::map<std::string, ModelConfig> models;
  std::map<std::string, AgentConfig> agents;
  std::string default_agent;
  ToolSettings tools;
  // True when no config file existed and the built-in defaults apply.
  bool builtin_defaults = false;
  // The file this config came from (set by LoadConfigFile, also when the
  // file was missing); empty for ParseConfig and BuiltinDefaults. Used in
  // messages that tell the user where to change something.
  std::string source_path;

  bool operator==(const Config&) const = default;
};

}  // namespace raw::config
