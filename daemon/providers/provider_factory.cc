#include "daemon/providers/provider_factory.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "daemon/providers/anthropic/anthropic_provider.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/extra_headers.h"
#include "daemon/providers/google/google_provider.h"
#include "daemon/providers/google/thought_signature.h"
#include "daemon/providers/openai_chat/openai_chat_provider.h"
#include "daemon/providers/openai_responses/openai_responses_provider.h"

namespace raw::providers {
namespace {

// One row per wire method, like tmux's command table.
struct MethodEntry {
  const char* method;
  const char* example_base_url;
  std::unique_ptr<Provider> (*make)(const config::ModelConfig&, http::HttpClient&,
                                    std::optional<std::string> api_key, const ProviderOptions&);
};

const MethodEntry kMethods[] = {
    {config::kMethodOpenAiChat, "https://api.openai.com/v1",
     [](const config::ModelConfig& m, http::HttpClient& http, std::optional<std::string> key,
        const ProviderOptions& o) -> std::unique_ptr<Provider> {
       return std::make_unique<openai_chat::OpenAiChatProvider>(m, http, std::move(key),
                                                                o.prompt_cache_key);
     }},
    {config::kMethodOpenAiResponses, "https://api.openai.com/v1",
     [](const config::ModelConfig& m, http::HttpClient& http, std::optional<std::string> key,
        const ProviderOptions& o) {
       return MakeOpenAiResponsesProvider(m, http, key.value_or(""), o);
     }},
    {config::kMethodAnthropicMessages, "https://api.anthropic.com/v1",
     [](const config::ModelConfig& m, http::HttpClient& http, std::optional<std::string> key,
        const ProviderOptions& o) {
       return anthropic::MakeAnthropicProvider(m, http, key.value_or(""), o, m.cache_retention);
     }},
    {config::kMethodGoogleGenerateContent, "https://generativelanguage.googleapis.com/v1beta",
     [](const config::ModelConfig& m, http::HttpClient& http, std::optional<std::string> key,
        const ProviderOptions& o) {
       return google::MakeGoogleProvider(m, http, key.value_or(""), o);
     }},
};

}  // namespace

absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const config::ModelConfig& model,
                                                       http::HttpClient& http,
                                                       const EnvLookup& env,
                                                       const ProviderOptions& options) {
  const MethodEntry* entry = nullptr;
  for (const auto& e : kMethods) {
    if (model.method == e.method) entry = &e;
  }
  if (entry == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model.name, ": unknown method \"", model.method, "\" (expected one of: ",
        kMethods[0].method, ", ", kMethods[1].method, ", ", kMethods[2].method, ", ",
        kMethods[3].method, ")"));
  }
  if (model.base_url.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("model ", model.name,
                                                   ": base_url is empty (for example \"",
                                                   entry->example_base_url, "\")"));
  }
  if (!model.headers.empty() && options.headers.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "model ", model.name, ": its headers were not resolved (their variables are expanded "
        "before the provider is made)"));
  }
  std::optional<std::string> api_key;
  if (options.api_key.has_value()) {
    if (!options.api_key->empty()) api_key = options.api_key;
  } else if (!model.api_key.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "model ", model.name, ": its api_key was not resolved (its variables are expanded "
        "before the provider is made)"));
  } else if (!model.api_key_env.empty()) {
    api_key = env ? env(model.api_key_env) : std::nullopt;
    if (!api_key.has_value() || api_key->empty()) {
      std::string owner = model.provider.empty() ? model.base_url : model.provider;
      return absl::FailedPreconditionError(
          absl::StrCat("model ", model.name, ": environment variable ", model.api_key_env,
                       " is not set (it holds the API key for ", owner, ")"));
    }
  }
  return WithExtraHeaders(http, options.headers, [&](http::HttpClient& client) {
    return entry->make(model, client, api_key, options);
  });
}

absl::StatusOr<std::unique_ptr<Provider>> MakeSerializingProvider(const config::ModelConfig& model,
                                                                  http::HttpClient& http) {
  config::ModelConfig keyless = model;
  keyless.api_key.clear();
  keyless.api_key_env.clear();
  keyless.headers.clear();
  ProviderOptions options;
  options.api_key = "";
  return MakeProvider(keyless, http, EnvLookup(), options);
}

ReasoningRule ReasoningRuleFor(const config::ModelConfig& model) {
  ReasoningRule rule;
  if (model.method == config::kMethodOpenAiChat) {
    // openai_chat/request_builder.cc: reasoning_content on messages with calls.
    if (model.send_reasoning_content) rule.when = ReasoningRule::When::kWithToolCalls;
  } else if (model.method == config::kMethodAnthropicMessages) {
    // anthropic/request_builder.cc: thinking blocks, each with its signature
    // (a redacted block carries no text of the reasoning).
    rule.when = ReasoningRule::When::kWithBlob;
    rule.blob_provider = anthropic::kOpaqueProvider;
    rule.blob_kind = anthropic::kThinkingSignatureKind;
  } else if (model.method == config::kMethodGoogleGenerateContent) {
    // google/request_builder.cc: the thought part, with its signature.
    rule.when = ReasoningRule::When::kWithBlob;
    rule.blob_provider = google::kOpaqueProvider;
    rule.blob_kind = google::kThoughtSignatureKind;
    rule.blob_id = google::kThoughtAnchor;
  }
  if (rule.when == ReasoningRule::When::kWithBlob) rule.model_id = model.model_id;
  rule.model = absl::StrCat(model.method, " ", model.model_id);
  return rule;
}

}  // namespace raw::providers
