#include "daemon/providers/provider_factory.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "daemon/providers/openai_chat/openai_chat_provider.h"

namespace raw::providers {
namespace {

// Methods the config accepts; only the first has an adapter so far.
constexpr const char* kKnownMethods[] = {
    config::kMethodOpenAiChat,
    "openai-responses",
    "anthropic-messages",
    "google-generate-content",
};

bool IsKnownMethod(std::string_view method) {
  for (std::string_view known : kKnownMethods) {
    if (method == known) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const config::ModelConfig& model,
                                                       http::HttpClient& http,
                                                       const EnvLookup& env,
                                                       const ProviderOptions& options) {
  if (model.method != config::kMethodOpenAiChat) {
    if (IsKnownMethod(model.method)) {
      return absl::UnimplementedError(
          absl::StrCat("model ", model.name, ": method \"", model.method,
                       "\" is not available yet (available: ", config::kMethodOpenAiChat, ")"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model.name, ": unknown method \"", model.method, "\" (expected one of: ",
        kKnownMethods[0], ", ", kKnownMethods[1], ", ", kKnownMethods[2], ", ",
        kKnownMethods[3], ")"));
  }
  if (model.base_url.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model ", model.name, ": base_url is empty (for example \"",
                     "https://api.openai.com/v1\")"));
  }
  std::optional<std::string> api_key;
  if (!model.api_key_env.empty()) {
    api_key = env ? env(model.api_key_env) : std::nullopt;
    if (!api_key.has_value() || api_key->empty()) {
      std::string owner = model.provider.empty() ? model.base_url : model.provider;
      return absl::FailedPreconditionError(
          absl::StrCat("model ", model.name, ": environment variable ", model.api_key_env,
                       " is not set (it holds the API key for ", owner, ")"));
    }
  }
  return std::make_unique<openai_chat::OpenAiChatProvider>(model, http, std::move(api_key),
                                                           options.prompt_cache_key);
}

}  // namespace raw::providers
