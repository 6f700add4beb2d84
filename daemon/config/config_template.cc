// ConfigTemplate: BuiltinDefaults() written out as a commented starting
// file. The values come from BuiltinDefaults() itself, so the two cannot
// drift apart; the comments explain each field once, at its first use.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_loader.h"

namespace raw::config {
namespace {

// One line of an object: `"key": value`, optionally preceded by comment
// lines. A commented-out entry shows an optional field with an example
// value; an entry with an empty key is a comment only.
struct Entry {
  std::string comment;  // lines separated by '\n'; "" for none
  std::string key;
  std::string value;  // JSON text; nested objects come pre-rendered
  bool commented_out = false;
};

std::string Quote(const std::string& s) { return DumpJson(Json(s)); }

std::string Seconds(int64_t ms) {
  if (ms % 1000 == 0) return absl::StrCat(ms / 1000);
  return absl::StrCat(static_cast<double>(ms) / 1000.0);
}

std::string StringArray(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const std::string& s : items) quoted.push_back(Quote(s));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

// Renders `{ ... }` whose entries sit at `indent` spaces and whose closing
// brace sits two spaces left of them.
std::string Render(const std::vector<Entry>& entries, int indent) {
  std::string pad(indent, ' ');
  std::string out = "{\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    // A blank line between the commented entries of the outer levels.
    if (i > 0 && !e.comment.empty() && indent <= 4) out += "\n";
    if (!e.comment.empty()) {
      for (absl::string_view line : absl::StrSplit(e.comment, '\n')) {
        absl::StrAppend(&out, pad, "// ", line, "\n");
      }
    }
    if (e.key.empty()) continue;
    bool more = false;
    for (size_t j = i + 1; j < entries.size(); ++j) {
      if (!entries[j].key.empty() && !entries[j].commented_out) more = true;
    }
    absl::StrAppend(&out, pad, e.commented_out ? "// " : "", Quote(e.key), ": ", e.value,
                    more ? "," : "", "\n");
  }
  absl::StrAppend(&out, std::string(indent - 2, ' '), "}");
  return out;
}

// The request path under base_url for `method`.
std::string RequestPath(absl::string_view method) {
  if (method == kMethodOpenAiResponses) return "/responses";
  if (method == kMethodAnthropicMessages) return "/messages";
  if (method == kMethodGoogleGenerateContent) return "/models/<model_id>:streamGenerateContent";
  return "/chat/completions";
}

// The model's cache settings: an explicit cache entry when it differs from
// the default, else a commented-out example for the methods that take one.
// The OpenAI comment comes with the explained model; the Anthropic one
// always, as the only model that shows a retention.
void AddCacheEntry(const ModelConfig& m, bool explain, std::vector<Entry>& e) {
  if (m.method == kMethodAnthropicMessages) {
    std::string comment =
        "Prompt caching: Raw marks the prompt with cache_control; retention is\n"
        "how long the provider keeps it, \"5m\" (default) or \"1h\".";
    if (m.cache_retention != "5m") {
      e.push_back({comment, "cache",
                   absl::StrCat(R"({"retention": )", Quote(m.cache_retention), "}")});
    } else {
      e.push_back({comment, "cache", R"({"retention": "1h"})", /*commented_out=*/true});
    }
  } else if (m.method == kMethodOpenAiChat || m.method == kMethodOpenAiResponses) {
    std::string comment =
        explain ? "Prompt caching: to OpenAI, Raw sends a stable cache key per session;\n"
                  "cache.key sets your own key instead."
                : "";
    if (m.cache_key) {
      e.push_back({comment, "cache", absl::StrCat(R"({"key": )", Quote(*m.cache_key), "}")});
    } else {
      e.push_back({comment, "cache", R"({"key": "my-project"})", /*commented_out=*/true});
    }
  }
}

std::string RenderModel(const ModelConfig& m, bool explain) {
  auto c = [&](const char* text) { return explain ? std::string(text) : std::string(); };
  const bool chat = m.method == kMethodOpenAiChat;
  std::vector<Entry> e;
  e.push_back({c("A label for the service; it picks the defaults of system_role and\n"
                 "max_tokens_field. Left out, it is derived from base_url."),
               "provider", Quote(m.provider)});
  e.push_back({c("Wire API: \"openai-chat-completions\" (also OpenAI-compatible servers\n"
                 "such as DeepSeek, Ollama and llama-server), \"openai-responses\",\n"
                 "\"anthropic-messages\" or \"google-generate-content\"."),
               "method", Quote(m.method)});
  e.push_back({c("The provider's name for the model."), "model_id", Quote(m.model_id)});
  // The path differs by method, so models of other methods repeat it.
  e.push_back({explain || !chat ? absl::StrCat("API root; requests go to <base_url>",
                                               RequestPath(m.method), ".")
                                : "",
               "base_url", Quote(m.base_url)});
  if (!m.api_key_env.empty()) {
    e.push_back({c("Environment variable holding the API key (the key itself never goes\n"
                   "in this file). Leave it out for a server that needs no key."),
                 "api_key_env", Quote(m.api_key_env)});
  }
  std::string window_comment =
      c("Context window in tokens. You supply it (Raw does not look it up); with it\n"
        "Raw shows how full the context is.");
  if (m.context_window_tokens) {
    e.push_back({window_comment, "context_window_tokens", absl::StrCat(*m.context_window_tokens)});
  } else {
    e.push_back({window_comment, "context_window_tokens", "131072", /*commented_out=*/true});
  }
  if (m.images) {
    e.push_back({c("The model takes images in prompts (PNG, JPEG, GIF, WebP)."), "images", "true"});
  }
  std::string cap_comment = c("Output cap per request, in tokens; left out, none is sent.");
  if (m.max_output_tokens) {
    e.push_back({cap_comment, "max_output_tokens", absl::StrCat(*m.max_output_tokens)});
  } else {
    e.push_back({cap_comment, "max_output_tokens", "8192", /*commented_out=*/true});
  }
  // The chat-completions-only fields; other methods leave them at their
  // defaults.
  if (chat) {
    e.push_back({c("Role of the system prompt: \"developer\" (OpenAI) or \"system\"."),
                 "system_role", Quote(m.system_role)});
    e.push_back({c("Name of the output cap field: \"max_completion_tokens\" (OpenAI)\n"
                   "or \"max_tokens\"."),
                 "max_tokens_field", Quote(m.max_tokens_field)});
    e.push_back({c("\"send\" passes reasoning back on assistant messages that made tool\n"
                   "calls, as DeepSeek's thinking-mode models require; else \"omit\"."),
                 "reasoning_content", Quote(m.send_reasoning_content ? "send" : "omit")});
  }
  AddCacheEntry(m, explain, e);
  e.push_back({c("Retries of a failed request that may succeed again (rate limits,\n"
                 "overloaded or unreachable servers), 0 to 10."),
               "max_retries", absl::StrCat(m.max_retries)});
  e.push_back({c("Longest silence between stream events before a request fails, in seconds."),
               "idle_timeout_seconds", Seconds(m.idle_timeout_ms)});
  e.push_back({c("Longest wait to connect, in seconds."), "connect_timeout_seconds",
               Seconds(m.connect_timeout_ms)});
  return Render(e, 6);
}

std::string ModelHeading(const ModelConfig& m) {
  std::string name = ProviderDisplayName(m.provider);
  if (m.api_key_env.empty()) {
    return absl::StrCat(name,
                        ", or another OpenAI-compatible server, on this machine; no key.\n"
                        "Chosen automatically when no key variable is set and it answers.");
  }
  return absl::StrCat(name, ". Usable when ", m.api_key_env, " is set.");
}

std::string RenderAgent(const AgentConfig& a) {
  std::vector<Entry> tools = {{"", "use", StringArray(a.tools_use)}};
  std::vector<Entry> e;
  e.push_back(
      {"Name of an entry in \"models\". Empty: the first built-in model whose key\n"
       "variable is set (openai, anthropic, gemini, deepseek, then the others by\n"
       "name), else a local keyless server that answers.",
       "model", Quote(a.model)});
  e.push_back({"The one system prompt every request starts with.", "system_prompt",
               Quote(a.system_prompt)});
  e.push_back(
      {"Most model requests in one turn (1 to 1000).", "max_steps", absl::StrCat(a.max_steps)});
  e.push_back(
      {"Automatic compaction: summarize older turns before a request would exceed\n"
       "trigger_tokens (needs the model's context_window_tokens). Left out: only\n"
       "/compact.",
       "compact", R"({"trigger_tokens": 300000, "keep_recent_turns": 2, "max_output_tokens": 512})",
       /*commented_out=*/true});
  e.push_back({"Tools the model may call: qualified names or globs (\"builtin/*\").", "tools",
               Render(tools, 8)});
  return Render(e, 6);
}

std::string RenderTools(const ToolSettings& t) {
  std::vector<Entry> bash = {
      {"Seconds before a command is stopped.", "timeout_seconds", Seconds(t.bash.timeout_ms)},
      {"Bytes of output a command returns to the model.", "max_output_bytes",
       absl::StrCat(t.bash.max_output_bytes)}};
  std::vector<Entry> files = {{"Largest read a file tool returns, in bytes.", "max_read_bytes",
                               absl::StrCat(t.files.max_read_bytes)}};
  return Render({{"", "bash", Render(bash, 6)}, {"", "files", Render(files, 6)}}, 4);
}

}  // namespace

std::string ConfigTemplate() {
  Config defaults = BuiltinDefaults();

  std::vector<Entry> models;
  bool first = true;
  for (absl::string_view name : kBuiltinModelOrder) {
    const ModelConfig& m = defaults.models.at(std::string(name));
    models.push_back({ModelHeading(m), m.name, RenderModel(m, first)});
    first = false;
  }

  std::vector<Entry> agents;
  for (const auto& [name, agent] : defaults.agents)
    agents.push_back({"", name, RenderAgent(agent)});

  std::vector<Entry> top = {
      {"Agent for sessions that name none.", "default_agent", Quote(defaults.default_agent)},
      {"Models the agents can use, by name. This section replaces the built-in\n"
       "models as a whole; delete it to get them back.",
       "models", Render(models, 4)},
      {"Agents, by name. This section replaces the built-in \"default\" agent as a\n"
       "whole; delete it to get it back.",
       "agents", Render(agents, 4)},
      {"Variables: where values such as API keys come from (\"env\", \"file\" or\n"
       "\"command\"). They are read when first needed, kept only in memory, and\n"
       "used as ${NAME} in models.<n>.api_key, models.<n>.headers and\n"
       "mcp_servers.<n>.env / headers.",
       "variables", R"({"GITHUB_TOKEN": {"command": ["gh", "auth", "token"]}})",
       /*commented_out=*/true},
      {"MCP servers, by name: a \"command\" (stdio) or a \"url\" (Streamable HTTP).\n"
       "An agent selects their tools as \"mcp/<server>/<tool>\" in tools.use.",
       "mcp_servers",
       absl::StrCat(R"({"github": {"url": "https://api.githubcopilot.com/mcp", )",
                    R"("headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}})"),
       /*commented_out=*/true},
      {"Raven research Tasks and the web search backend (docs/raven.md). With\n"
       "raven.search, web_search is offered and raven_task's discover searches.",
       "raven", R"({"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}})",
       /*commented_out=*/true},
      {"Days without conversation activity after which a session is removed\n"
       "(0 = never).",
       "sessions",
       absl::StrCat(R"({"expire_after_days": )", defaults.sessions.expire_after_days, "}")},
      {"Limits of the built-in tools.", "tools", RenderTools(defaults.tools)}};

  return absl::StrCat(
      "// Raw configuration ($XDG_CONFIG_HOME/raw/config.json, usually\n"
      "// ~/.config/raw/config.json): JSON with // and /* */ comments. This is the\n"
      "// built-in configuration written out; Raw's docs/config.md describes every field.\n",
      Render(top, 2), "\n");
}

}  // namespace raw::config
