#include "daemon/config/model_entry.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/config/base_url.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/field_reader.h"
#include "daemon/config/string_map_entry.h"

namespace raw::config {
namespace {

bool Contains(std::span<const absl::string_view> list, absl::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// ^[a-z0-9_.-]+$: labels are compared as written, so one spelling only.
bool IsProviderLabel(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_islower(static_cast<unsigned char>(c)) ||
           absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

// ^[A-Za-z_][A-Za-z0-9_]*$
bool IsEnvVarName(absl::string_view s) {
  if (s.empty() || absl::ascii_isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void ReadMethod(FieldReader& r, ModelConfig& m) {
  std::string supported = JoinNames(kSupportedMethods);
  r.Require("method", absl::StrCat("one of: ", supported));
  const Json* v = r.Find("method");
  if (v == nullptr) return;
  if (!v->is_string()) {
    r.Report("method",
             absl::StrCat("expected a string (one of: ", supported, "), got ", DescribeValue(*v)));
    return;
  }
  const std::string& method = v->get_ref<const std::string&>();
  if (Contains(kSupportedMethods, method)) {
    m.method = method;
  } else {
    r.Report("method", absl::StrCat("unknown method ", DescribeValue(*v),
                                    " (expected one of: ", supported, ")"));
  }
}

void ReadBaseUrl(FieldReader& r, ModelConfig& m) {
  r.Require("base_url", "an http(s) URL such as \"https://api.openai.com/v1\"");
  std::optional<std::string> url = r.String("base_url");
  if (!url) return;
  auto parts = ParseBaseUrl(*url);
  if (!parts.ok()) {
    // Neither credentials nor a query is quoted: either may carry a key.
    std::string shown =
        url->find('@') == std::string::npos ? DescribeValue(Json(UrlForMessages(*url))) : "the URL";
    r.Report("base_url", absl::StrCat(shown, " ", parts.status().message()));
    return;
  }
  m.base_url = TrimBaseUrl(*url);
}

void ReadProvider(FieldReader& r, ModelConfig& m) {
  if (std::optional<std::string> provider = r.String("provider")) {
    if (IsProviderLabel(*provider)) {
      m.provider = *provider;
    } else {
      r.Report("provider", absl::StrCat("expected a lowercase label such as \"openai\", "
                                        "\"deepseek\" or \"ollama\", got ",
                                        DescribeValue(Json(*provider))));
    }
  } else if (r.Find("provider") == nullptr && !m.base_url.empty()) {
    m.provider = DeriveProviderLabel(m.base_url);
  }
}

void ReadApiKeyEnv(FieldReader& r, ModelConfig& m) {
  const Json* v = r.Find("api_key_env");
  if (v == nullptr) return;
  if (v->is_string() && IsEnvVarName(v->get_ref<const std::string&>())) {
    m.api_key_env = v->get<std::string>();
    return;
  }
  // The value is not echoed: a misplaced key is the usual cause.
  r.Report("api_key_env",
           "expected the name of an environment variable such as \"OPENAI_API_KEY\" (letters, "
           "digits and '_'), not the key itself; leave it out for a server that needs no key");
}

// models.<name>.api_key: the key itself, normally a variable reference.
// Never echoed.
void ReadApiKey(FieldReader& r, ModelConfig& m) {
  const Json* v = r.Find("api_key");
  if (v == nullptr) return;
  if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
    r.Report("api_key",
             "expected the API key, normally a variable reference such as \"${OPENAI_KEY}\" "
             "(see \"variables\")");
    return;
  }
  if (r.Find("api_key_env") != nullptr) {
    r.Report("api_key", "set either api_key or api_key_env, not both");
    return;
  }
  m.api_key = v->get<std::string>();
}

// The header that carries the API key for `method`, lowercased; "" for an
// unknown method.
absl::string_view KeyHeader(absl::string_view method) {
  if (method == kMethodOpenAiChat || method == kMethodOpenAiResponses) return "authorization";
  if (method == kMethodAnthropicMessages) return "x-api-key";
  if (method == kMethodGoogleGenerateContent) return "x-goog-api-key";
  return "";
}

// models.<name>.headers. A header Raw already sends on this model's requests
// would go out twice, and one libcurl derives from the URL and body must
// match them, so both kinds are refused.
void ReadModelHeaders(FieldReader& r, ModelConfig& m, std::vector<ConfigProblem>& problems) {
  const bool has_key = !m.api_key.empty() || !m.api_key_env.empty();
  HeaderRefusal refuse = [&m, has_key](absl::string_view name) -> std::optional<std::string> {
    if (name == "content-type" || name == "accept") {
      return "Raw sends this header on every request; a second one is refused";
    }
    if (name == "host" || name == "content-length" || name == "transfer-encoding") {
      return "derived from base_url and the request body; it cannot be set";
    }
    if (name == "anthropic-version" && m.method == kMethodAnthropicMessages) {
      return "Raw sends this header on every request of method \"anthropic-messages\"; a "
             "second one is refused";
    }
    if (has_key && name == KeyHeader(m.method)) {
      return absl::StrCat("Raw sends the API key (api_key or api_key_env) in this header for "
                          "method \"",
                          m.method,
                          "\"; leave the key fields out to send this header yourself");
    }
    return std::nullopt;
  };
  m.headers = ReadHeaders(r, "headers", refuse, problems);
}

void ReadTokenLimits(FieldReader& r, ModelConfig& m) {
  m.context_window_tokens = r.Integer("context_window_tokens", 1, kMaxTokenCount);
  m.max_output_tokens = r.Integer("max_output_tokens", 1, kMaxTokenCount);
  if (m.context_window_tokens && m.max_output_tokens &&
      *m.max_output_tokens >= *m.context_window_tokens) {
    r.Report("max_output_tokens",
             absl::StrCat("must be less than context_window_tokens (", *m.context_window_tokens,
                          "), got ", *m.max_output_tokens));
  }
}

// models.<name>.cache. Runs after ReadMethod; the method checks are skipped
// when the method itself is invalid (that is reported already).
void ReadCache(FieldReader& r, ModelConfig& m, std::vector<ConfigProblem>& problems) {
  const Json* v = r.Find("cache");
  if (v == nullptr) return;
  FieldReader cache(*v, r.PathOf("cache"), problems);
  if (!cache.is_object()) return;
  cache.RejectUnknownKeys(kModelCacheKeys);
  if (auto key = cache.NonEmptyString("key", "a non-empty string")) {
    if (m.method == kMethodOpenAiChat || m.method == kMethodOpenAiResponses) {
      m.cache_key = *key;
    } else if (!m.method.empty()) {
      cache.Report("key", absl::StrCat("only methods \"", kMethodOpenAiChat, "\" and \"",
                                       kMethodOpenAiResponses,
                                       "\" send a prompt-cache key; this model uses \"",
                                       m.method, "\""));
    }
  }
  if (auto retention = cache.OneOf("retention", kCacheRetentions)) {
    if (m.method == kMethodAnthropicMessages) {
      m.cache_retention = *retention;
    } else if (!m.method.empty()) {
      cache.Report("retention",
                   absl::StrCat("only method \"", kMethodAnthropicMessages,
                                "\" takes a retention (the lifetime of its cache_control "
                                "marker); this model uses \"",
                                m.method, "\""));
    }
  }
}

// `key`, one of `allowed`, which only `method` takes (`what` says what it
// does). Reported and nullopt on another method; the method checks are
// skipped when the method itself is invalid (that is reported already).
std::optional<std::string> MethodOption(FieldReader& r, const ModelConfig& m, absl::string_view key,
                                        std::span<const absl::string_view> allowed,
                                        absl::string_view method, absl::string_view what) {
  std::optional<std::string> value = r.OneOf(key, allowed);
  if (!value || m.method.empty() || m.method == method) return value;
  r.Report(key, absl::StrCat("only method \"", method, "\" takes it (", what,
                             "); this model uses \"", m.method, "\""));
  return std::nullopt;
}

void ReadReasoningOptions(FieldReader& r, ModelConfig& m) {
  if (auto mode = MethodOption(r, m, "reasoning_content", kReasoningContentModes, kMethodOpenAiChat,
                               "whether reasoning_content goes back on assistant messages that "
                               "made tool calls")) {
    m.send_reasoning_content = *mode == "send";
  }
  m.reasoning_effort =
      MethodOption(r, m, "reasoning_effort", kReasoningEfforts, kMethodOpenAiResponses,
                   "sent as reasoning.effort, with reasoning summaries");
  if (auto mode = MethodOption(
          r, m, "thought_summaries", kThoughtSummaryModes, kMethodGoogleGenerateContent,
          "whether thinkingConfig asks for summaries of the model's thinking")) {
    m.include_thoughts = *mode == "include";
  }
}

}  // namespace

ModelConfig ParseModelEntry(const std::string& name, const Json& value, const std::string& path,
                            std::vector<ConfigProblem>& problems) {
  ModelConfig m;
  m.name = name;
  FieldReader r(value, path, problems);
  if (!r.is_object()) return m;
  r.RejectUnknownKeys(kModelKeys);

  ReadMethod(r, m);
  r.Require("model_id", "the provider's model name, such as \"gpt-5.1\"");
  if (auto id = r.NonEmptyString("model_id", "the provider's model name, such as \"gpt-5.1\"")) {
    m.model_id = *id;
  }
  ReadBaseUrl(r, m);
  ReadProvider(r, m);
  ReadApiKeyEnv(r, m);
  ReadApiKey(r, m);
  ReadModelHeaders(r, m, problems);
  ReadTokenLimits(r, m);
  m.images = r.Boolean("images").value_or(false);

  m.system_role = r.OneOf("system_role", kSystemRoles).value_or(DefaultSystemRole(m.provider));
  m.max_tokens_field =
      r.OneOf("max_tokens_field", kMaxTokensFields).value_or(DefaultMaxTokensField(m.provider));
  if (auto ms = r.SecondsAsMillis("idle_timeout_seconds", kMaxTimeoutSeconds)) {
    m.idle_timeout_ms = *ms;
  }
  if (auto ms = r.SecondsAsMillis("connect_timeout_seconds", kMaxTimeoutSeconds)) {
    m.connect_timeout_ms = *ms;
  }
  if (auto bytes = r.Integer("max_response_bytes", kMinResponseBytes, kMaxResponseBytes)) {
    m.max_response_bytes = *bytes;
  }
  if (auto ms = r.SecondsAsMillis("max_stream_seconds", kMaxTimeoutSeconds)) {
    m.max_stream_ms = *ms;
  }
  ReadCache(r, m, problems);
  if (auto retries = r.Integer("max_retries", 0, kMaxModelRetries)) {
    m.max_retries = static_cast<int>(*retries);
  }
  ReadReasoningOptions(r, m);
  return m;
}

}  // namespace raw::config
