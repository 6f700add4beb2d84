// ConfigKeys: the keys each object of config.json may hold, and the allowed
// values of its enumerated fields. The loader rejects any other key with a
// message listing these; docs/config.schema.json must list the same ones (a
// test compares them). Constants only; thread-safe.
#pragma once

#include <array>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace raw::config {

// Top level. "$schema" is accepted and ignored so editors can point at
// docs/config.schema.json.
inline constexpr std::array<absl::string_view, 11> kTopLevelKeys = {
    "$schema", "default_agent", "models",    "agents",      "tools",   "hooks",
    "skill_dirs", "variables",  "mcp_servers", "sessions",  "raven"};

// models.<name>
inline constexpr std::array<absl::string_view, 21> kModelKeys = {"provider",
                                                                 "method",
                                                                 "model_id",
                                                                 "base_url",
                                                                 "api_key_env",
                                                                 "api_key",
                                                                 "headers",
                                                                 "context_window_tokens",
                                                                 "max_output_tokens",
                                                                 "system_role",
                                                                 "max_tokens_field",
                                                                 "idle_timeout_seconds",
                                                                 "connect_timeout_seconds",
                                                                 "cache",
                                                                 "max_retries",
                                                                 "reasoning_content",
                                                                 "reasoning_effort",
                                                                 "thought_summaries",
                                                                 "max_response_bytes",
                                                                 "max_stream_seconds",
                                                                 "images"};
inline constexpr std::array<absl::string_view, 3> kModelRequiredKeys = {"method", "model_id",
                                                                        "base_url"};
// models.<name>.cache
inline constexpr std::array<absl::string_view, 2> kModelCacheKeys = {"key", "retention"};

// agents.<name>, agents.<name>.tools, agents.<name>.compact
inline constexpr std::array<absl::string_view, 15> kAgentKeys = {
    "model",         "system_prompt",            "max_steps", "tools",
    "compact",       "rules",                    "approval_mode",
    "approval_timeout_seconds", "hooks",         "skills",
    "pass_secret_env", "allow_private_addresses",  "allow_protected_paths",
    "extends",       "prompts"};
// agents.<name>.allow_protected_paths entries: the built-in protected paths
// (daemon/tools/policy/protected_paths.h says what each covers).
inline constexpr std::array<absl::string_view, 23> kProtectedPathNames = {
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.azure",
    "~/.password-store",
    "~/.config/gh",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.kube/config",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.pgpass",
    "~/.vault-token",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "process-environment",
    "raw-config",
    "raw-state",
    "raw-data",
    "raw-runtime",
    "raw-variables"};
// agents.<name>.rules[i]: exactly one action key, plus optional subjects.
inline constexpr std::array<absl::string_view, 7> kRuleKeys = {
    "allow", "ask", "deny", "command", "path", "redirect", "url"};
// agents.<name>.approval_mode; the first is the default.
inline constexpr std::array<absl::string_view, 4> kApprovalModes = {"default", "ask_all",
                                                                    "allow_all", "deny_all"};
// hooks.<name>
inline constexpr std::array<absl::string_view, 5> kHookKeys = {"event", "command", "matcher",
                                                               "timeout_seconds", "on_failure"};
inline constexpr std::array<absl::string_view, 7> kHookEvents = {
    "session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use",
    "pre_compact",   "turn_end",           "notification"};
inline constexpr std::array<absl::string_view, 2> kHookFailurePolicies = {"ignore", "block"};
inline constexpr std::array<absl::string_view, 1> kAgentToolsKeys = {"use"};
inline constexpr std::array<absl::string_view, 3> kAgentCompactKeys = {
    "trigger_tokens", "keep_recent_turns", "max_output_tokens"};

// tools, tools.bash, tools.files
inline constexpr std::array<absl::string_view, 3> kToolsKeys = {"bash", "files", "web_fetch"};
// Largest byte count accepted for tools.* limits (1 GiB); tools.*.timeout_seconds
// are at most kMaxTimeoutSeconds (model_entry.h).
inline constexpr int64_t kMaxByteLimit = int64_t{1} << 30;
// Largest tools.files.max_results.
inline constexpr int64_t kMaxResults = 100000;
inline constexpr std::array<absl::string_view, 2> kToolsBashKeys = {"timeout_seconds",
                                                                    "max_output_bytes"};
inline constexpr std::array<absl::string_view, 2> kToolsFilesKeys = {"max_read_bytes",
                                                                     "max_results"};
inline constexpr std::array<absl::string_view, 3> kToolsWebFetchKeys = {
    "timeout_seconds", "max_bytes", "max_output_bytes"};

// variables.<NAME>: exactly one source key, plus options.
inline constexpr std::array<absl::string_view, 5> kVariableKeys = {"env", "file", "command",
                                                                   "timeout_seconds", "secret"};
// The source keys, in the order of VariableSource.
inline constexpr std::array<absl::string_view, 3> kVariableSources = {"env", "file", "command"};

// mcp_servers.<name>: exactly one of "command" (stdio) or "url" (HTTP).
inline constexpr std::array<absl::string_view, 11> kMcpServerKeys = {
    "command", "url", "env", "cwd", "headers", "startup_timeout_seconds", "call_timeout_seconds",
    "idle_timeout_seconds", "roots", "max_progress_bytes", "from"};

// sessions
// Bounds of sessions.max_live_bytes (64 KiB to 1 GiB).
inline constexpr int64_t kMinLiveBytes = 64 * 1024;
inline constexpr int64_t kMaxLiveBytes = int64_t{1} << 30;
// Upper bound of mcp_servers.<name>.max_progress_bytes (1 MiB).
inline constexpr int64_t kMaxProgressBytes = 1024 * 1024;
inline constexpr std::array<absl::string_view, 3> kSessionsKeys = {
    "expire_after_days", "idle_unload_seconds", "max_live_bytes"};

// raven and its sections (raven_entry.h).
inline constexpr std::array<absl::string_view, 5> kRavenKeys = {"verify", "discovery", "search",
                                                                "draft", "network"};
inline constexpr std::array<absl::string_view, 4> kRavenVerifyKeys = {
    "fetch_timeout_seconds", "total_timeout_seconds", "max_bytes", "max_parallel_fetches"};
inline constexpr std::array<absl::string_view, 1> kRavenDiscoveryKeys = {"enabled"};
inline constexpr std::array<absl::string_view, 5> kRavenSearchKeys = {
    "backend", "url", "api_key_variable", "timeout_seconds", "max_results"};
// raven.search.backend, in the order of SearchBackendKind after kNone.
inline constexpr std::array<absl::string_view, 2> kSearchBackends = {"searxng", "brave"};
inline constexpr std::array<absl::string_view, 3> kRavenDraftKeys = {"routes", "timeout_seconds",
                                                                     "max_output_tokens"};
inline constexpr std::array<absl::string_view, 1> kRavenNetworkKeys = {"allow_private_addresses"};
// Bounds of raven.*: search results per query, draft routes, and the
// timeouts (seconds).
inline constexpr int64_t kMaxSearchResults = 20;
inline constexpr int64_t kMaxDraftRoutes = 4;
inline constexpr int64_t kMaxRavenTimeoutSeconds = 3600;
// Upper bound of raven.verify.max_parallel_fetches (Source pages fetched at
// once, each on a thread of its own).
inline constexpr int64_t kMaxRavenParallelFetches = 16;

// Methods this build implements (the kMethod* constants of config.h).
inline constexpr std::array<absl::string_view, 4> kSupportedMethods = {
    "openai-chat-completions", "openai-responses", "anthropic-messages",
    "google-generate-content"};

inline constexpr std::array<absl::string_view, 2> kSystemRoles = {"system", "developer"};
inline constexpr std::array<absl::string_view, 2> kMaxTokensFields = {"max_tokens",
                                                                      "max_completion_tokens"};
// models.<name>.cache.retention (Anthropic's cache_control ttl); the first
// is the default.
inline constexpr std::array<absl::string_view, 2> kCacheRetentions = {"5m", "1h"};
// models.<name>.reasoning_content; "omit" is the default.
inline constexpr std::array<absl::string_view, 2> kReasoningContentModes = {"omit", "send"};
// models.<name>.thought_summaries; "include" is the default.
inline constexpr std::array<absl::string_view, 2> kThoughtSummaryModes = {"include", "omit"};

// Namespaces of qualified tool names accepted in agents.<name>.tools.use.
inline constexpr std::array<absl::string_view, 2> kToolNamespaces = {"builtin", "mcp"};

}  // namespace raw::config
