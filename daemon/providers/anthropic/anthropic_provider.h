// AnthropicProvider: the Provider for the anthropic-messages method.
//
// One Stream() call is one HTTP request, POST {base_url}/messages, with no
// retries (the retry policy lives above providers), carrying "x-api-key"
// (when a key is set) and "anthropic-version: 2023-06-01". The body bytes
// go through SseDecoder and StreamDecoder and every event reaches the sink
// as soon as its bytes arrive. A status outside 2xx is collected and
// classified with the shared classifier (openai_chat/error_classifier.h,
// which reads Anthropic's {"type":"error","error":{...},"request_id"}
// bodies and the request-id header); a 200 application/json body is decoded
// whole. Transport outcomes of HttpClient become ErrorEvents: cancellation
// -> kCancelled, idle deadline -> kTimeout, a connection that failed ->
// kNetwork, a body cut off -> kPrematureEof.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/provider_factory.h"

namespace raw::providers::anthropic {

// The API version every request names (still the SDK's constant).
inline constexpr char kAnthropicVersion[] = "2023-06-01";

class AnthropicProvider : public Provider {
 public:
  // An empty `api_key` sends no x-api-key header (a local gateway).
  AnthropicProvider(config::ModelConfig model, http::HttpClient& http, std::string api_key,
                    CacheRetention cache_retention = CacheRetention::k5m);

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) override;

  // "{base_url}/messages" (one slash between the parts).
  std::string endpoint() const;

 private:
  config::ModelConfig model_;
  http::HttpClient& http_;
  std::string api_key_;
  CacheRetention cache_retention_;
};

// The factory entry for the anthropic-messages method. `cache_retention`
// is the configured prompt-cache retention, "5m" (the default) or "1h";
// any other value falls back to "5m" (the config loader rejects it first,
// see ParseCacheRetention). The API takes no cache routing key, so
// `options.prompt_cache_key` is not sent.
std::unique_ptr<Provider> MakeAnthropicProvider(const config::ModelConfig& model,
                                                http::HttpClient& http, std::string api_key,
                                                const ProviderOptions& options,
                                                std::string cache_retention = "5m");

}  // namespace raw::providers::anthropic
