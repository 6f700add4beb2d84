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

#include "daemon/config/raven_settings.h"

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
  // Whether the model takes images in user prompts (StartTurnRequest.images);
  // Raw cannot tell from the API, so an entry says so.
  bool images = false;
  // openai-chat-completions: role of the system prompt ("system" or
  // "developer") and the name of the output cap field ("max_tokens" or
  // "max_completion_tokens"); defaults depend on the provider label.
  std::string system_role = "system";
  std::string max_tokens_field = "max_tokens";
  // Longest silence between stream events before the request fails.
  int64_t idle_timeout_ms = 300000;
  int64_t connect_timeout_ms = 15000;
  // Bounds on one response, against a broken or hostile endpoint: the bytes
  // of text, reasoning and tool calls it may stream, and how long
  // the whole stream may take. Past either the request fails (not retried).
  int64_t max_response_bytes = 16 * 1024 * 1024;
  int64_t max_stream_ms = 3600 * 1000;
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
  // reasoning.effort ("minimal", "low", "medium", "high"): openai-responses
  // sends reasoning {effort, summary: "auto"} so reasoning models stream
  // summaries; unset = no reasoning settings are sent.
  std::optional<std::string> reasoning_effort;
  // google-generate-content only (thought_summaries: "include", the
  // default): ask for summaries of the model's thinking
  // (generationConfig.thinkingConfig.includeThoughts); "omit" sends no
  // thinking settings, for models without thinking, which refuse them.
  bool include_thoughts = true;
  // api_key: the key itself, normally a variable reference ("${OPENAI_KEY}",
  // see Config::variables); used instead of api_key_env, and never both.
  std::string api_key{};
  // headers: extra HTTP headers sent with every request; values may hold
  // variable references.
  std::map<std::string, std::string> headers{};

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

// One entry of agents.<name>.rules: what to do with the calls it matches.
// Rules are checked in order; the first whose tool pattern and argument
// pattern both match decides. Patterns are globs (`*` any run except '/',
// `**` any run, `?` one character) or, with a "re:" prefix, RE2 regular
// expressions matched against the whole subject. See docs/tools.md.
enum class RuleAction { kAllow, kAsk, kDeny };

struct RuleConfig {
  RuleAction action = RuleAction::kAsk;
  std::string tool;  // qualified-name glob, e.g. "builtin/bash" or "mcp/*"
  // builtin/bash (and any tool whose rule subject is a command): matched
  // against every simple command of a compound command. Unset = any.
  std::optional<std::string> command;
  // File tools: matched against the resolved absolute path; a relative
  // pattern is taken relative to the session's working directory.
  std::optional<std::string> path;
  // Command tools: matched against the resolved absolute path of each file
  // a redirection of the command line writes to (">f", ">>f", "2>f"); a
  // relative pattern is taken relative to the session's working directory.
  std::optional<std::string> redirect = std::nullopt;
  // builtin/web_fetch (tools whose rule subject is a URL): matched against
  // the normalized URL as fetched, e.g. "https://docs.python.org/*".
  std::optional<std::string> url = std::nullopt;

  bool operator==(const RuleConfig&) const = default;
};

// What happens to a call that no rule matched.
enum class ApprovalMode {
  kDefault,   // each tool's default: read-only tools allow, others ask
  kAskAll,    // ask for every call, read-only ones too
  kAllowAll,  // allow; explicit ask and deny rules still apply
  kDenyAll,   // deny (unattended agents); explicit allow rules still apply
};

// hooks.<name>: a command run at one event. See docs/hooks.md.
enum class HookEvent {
  kSessionStart,
  kUserPromptSubmit,
  kPreToolUse,
  kPostToolUse,
  kPreCompact,
  kTurnEnd,
  kNotification,
};

// What a hook that times out, crashes or prints malformed output means.
enum class HookFailurePolicy {
  kIgnore,  // a warning notice; the action goes on
  kBlock,   // the action is blocked (pre_tool_use: the call is denied)
};

struct HookConfig {
  std::string name;  // the key under "hooks"
  HookEvent event = HookEvent::kPreToolUse;
  // argv; argv[0] is a bare name found on PATH or an absolute path (the
  // loader resolves a relative one against the config file's directory,
  // the package resolver against the package's).
  std::vector<std::string> command;
  // pre_tool_use / post_tool_use: qualified tool-name glob; empty = all.
  std::string matcher;
  int64_t timeout_ms = 30000;
  HookFailurePolicy on_failure = HookFailurePolicy::kIgnore;

  bool operator==(const HookConfig&) const = default;
};

struct AgentConfig {
  std::string name;   // the key under "agents"
  std::string model;  // a key of Config::models; empty = pick automatically
  std::string system_prompt;
  int max_steps = 50;
  // Exact qualified tool names or globs ("builtin/*"). Without a "tools"
  // key: DefaultToolsUse(), except for an agent with `extends`, whose list
  // stays empty until its preset is applied (it gets the preset's tools,
  // or the default when the preset sets none either).
  std::vector<std::string> tools_use;
  CompactSettings compact;
  std::vector<RuleConfig> rules;
  ApprovalMode approval_mode = ApprovalMode::kDefault;
  // How long an `ask` waits for a client's answer before the call is denied.
  int64_t approval_timeout_ms = 300000;
  // Keys of Config::hooks this agent runs, and skill-name globs it uses.
  std::vector<std::string> hooks;
  std::vector<std::string> skills;
  // Withheld environment variables (config/withheld_env.h) that this
  // agent's commands (bash, hooks) still get.
  std::vector<std::string> pass_secret_env;
  // builtin/web_fetch may reach loopback, private and link-local addresses
  // (a local dev server, an intranet); off by default.
  bool allow_private_addresses = false;
  // Names of built-in protected paths (tools/policy/protected_paths.h:
  // "~/.ssh", "raw-state", ...) this agent's file tools may reach; the
  // others stay denied whatever its rules say.
  std::vector<std::string> allow_protected_paths;
  // extends: "pkg/<alias>/agent/<name>", a package's agent preset whose
  // fields apply where this agent leaves them out (resolved with the agent,
  // see daemon/packages/package_resolver.h); empty = none.
  std::string extends{};
  // With `extends` (and in a package's presets): the keys the object set
  // itself ("model", "tools", ...); `extends` fills everything else.
  std::vector<std::string> explicit_keys{};
  // prompts: "pkg/<alias>/prompt/<name>" prompt sections (in a package's
  // preset: names of its own prompts). Their texts follow the system prompt
  // in this order, each after a blank line, once the agent is resolved
  // (daemon/packages/package_resolver.h).
  std::vector<std::string> prompts{};

  bool operator==(const AgentConfig&) const = default;
};

struct BashSettings {
  int64_t timeout_ms = 120000;
  int64_t max_output_bytes = 30000;

  bool operator==(const BashSettings&) const = default;
};

struct FileSettings {
  int64_t max_read_bytes = 256 * 1024;
  // builtin/glob, builtin/grep, builtin/list_dir: most entries or matching
  // lines returned before the output says it was cut.
  int64_t max_results = 500;

  bool operator==(const FileSettings&) const = default;
};

struct WebFetchSettings {
  int64_t timeout_ms = 30000;
  int64_t max_bytes = 2 * 1024 * 1024;  // of the response body
  int64_t max_output_bytes = 100000;    // of the text returned to the model
  // Whether web_fetch may connect to loopback, private, link-local and
  // other non-public addresses; set per turn from
  // AgentConfig::allow_private_addresses (it is not a tools.web_fetch key).
  bool allow_private_addresses = false;

  bool operator==(const WebFetchSettings&) const = default;
};

struct ToolSettings {
  BashSettings bash;
  FileSettings files;
  WebFetchSettings web_fetch;

  bool operator==(const ToolSettings&) const = default;
};

// variables.<NAME>: where a value comes from. Values are read when first
// needed and cached in memory for the daemon's lifetime (daemon/vars); they
// are referenced as ${NAME} in models.<n>.api_key, models.<n>.headers and
// mcp_servers.<n>.{env, headers}, and never stored.
enum class VariableSource { kEnv, kFile, kCommand };

struct VariableConfig {
  std::string name;  // the key under "variables"
  VariableSource source = VariableSource::kEnv;
  std::string env{};                   // kEnv: the environment variable
  std::string file{};                  // kFile: absolute path (resolved by the loader)
  std::vector<std::string> command{};  // kCommand: argv; stdout is the value
  int64_t timeout_ms = 10000;        // kCommand
  // Secret values are redacted from stored tool output.
  bool secret = true;

  bool operator==(const VariableConfig&) const = default;
};

// sessions: storage policy.
struct SessionSettings {
  // Days without committed conversation activity after which a session is
  // removed; 0 = never.
  int64_t expire_after_days = 30;
  // Seconds a loaded session stays in the daemon's memory with no turn
  // running, no subscriber and no write lease; it is then unloaded (and
  // reloaded from the store when next used).
  int64_t idle_unload_seconds = 300;
  // Bytes of live (not yet committed) events a session keeps for clients
  // that join mid-step, and that one client's queue may hold; past it the
  // oldest are dropped and clients resynchronize from the store.
  int64_t max_live_bytes = 8 * 1024 * 1024;

  bool operator==(const SessionSettings&) const = default;
};

// mcp_servers.<name>: one MCP server, either stdio (`command`) or Streamable
// HTTP (`url`). See docs/mcp.md.
struct McpServerConfig {
  std::string name;  // the key under "mcp_servers"
  // stdio: argv (argv[0] found on PATH), extra environment (values may hold
  // variable references) and working directory (empty = the daemon's).
  std::vector<std::string> command;
  std::map<std::string, std::string> env{};
  std::string cwd{};
  // Streamable HTTP: the endpoint and extra headers (values may hold
  // variable references).
  std::string url{};
  std::map<std::string, std::string> headers{};
  int64_t startup_timeout_ms = 30000;   // initialize + first tools/list
  int64_t call_timeout_ms = 120000;     // one tools/call
  int64_t idle_timeout_ms = 600000;     // stop after this long unused
  // Longest progress message of a call kept (longer ones are cut).
  int64_t max_progress_bytes = 1024;
  // Offer the server the session's working directory as its one root
  // (the MCP `roots` capability); connections are then per directory.
  bool roots = false;
  // from: "pkg/<alias>/mcp/<name>", a package's server definition that
  // replaces every field above when an agent using this server is resolved
  // (daemon/packages); empty = defined here.
  std::string from{};
  // Set for a session's own server (session_mcp_servers.h): the session it
  // belongs to, whose connection no other session shares. Empty for a
  // server under "mcp_servers".
  std::string session_id{};

  bool operator==(const McpServerConfig&) const = default;
};

struct Config {
  std::map<std::string, ModelConfig> models;
  std::map<std::string, AgentConfig> agents;
  std::map<std::string, HookConfig> hooks;
  std::map<std::string, VariableConfig> variables{};
  std::map<std::string, McpServerConfig> mcp_servers{};
  SessionSettings sessions{};
  // skill_dirs: folders holding a SKILL.md, or holding skill folders; a
  // relative entry is relative to the config file's directory.
  std::vector<std::string> skill_dirs;
  std::string default_agent;
  ToolSettings tools;
  // raven: builtin/raven_task and the web search backend (raven_settings.h).
  RavenSettings raven{};
  // True when no config file existed and the built-in defaults apply.
  bool builtin_defaults = false;
  // The file this config came from (set by LoadConfigFile, also when the
  // file was missing); empty for ParseConfig and BuiltinDefaults. Used in
  // messages that tell the user where to change something.
  std::string source_path;

  bool operator==(const Config&) const = default;
};

}  // namespace raw::config
