#include "daemon/providers/anthropic/anthropic_provider.h"

#include <memory>
#include <utility>

#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/error_body.h"

namespace raw::providers::anthropic {
namespace {

StreamingApi MessagesApi(const config::ModelConfig& model, const std::string& api_key,
                         CacheRetention cache_retention) {
  StreamingApi api;
  api.path = "messages";
  if (!api_key.empty()) api.headers.emplace_back("x-api-key", api_key);
  api.headers.emplace_back("anthropic-version", kAnthropicVersion);
  api.headers.emplace_back("content-type", "application/json");
  api.headers.emplace_back("accept", "text/event-stream");
  api.request_id_header = "request-id";
  // The shared classifier reads Anthropic's error bodies too.
  api.classify_http_error = &error_body::ClassifyHttpError;
  api.build_body = [model, cache_retention](const ModelRequest& request) {
    return BuildRequest(request, model, cache_retention);
  };
  api.new_decoder = [] { return std::make_unique<StreamDecoder>(); };
  return api;
}

}  // namespace

AnthropicProvider::AnthropicProvider(config::ModelConfig model, http::HttpClient& http,
                                     std::string api_key, CacheRetention cache_retention)
    : StreamingProvider(model, http, MessagesApi(model, api_key, cache_retention)) {}

std::unique_ptr<Provider> MakeAnthropicProvider(const config::ModelConfig& model,
                                                http::HttpClient& http, std::string api_key,
                                                const ProviderOptions& /*options*/,
                                                std::string cache_retention) {
  absl::StatusOr<CacheRetention> retention = ParseCacheRetention(cache_retention);
  return std::make_unique<AnthropicProvider>(model, http, std::move(api_key),
                                             retention.value_or(CacheRetention::k5m));
}

}  // namespace raw::providers::anthropic
