// AnthropicProvider: the Provider for the anthropic-messages method.
//
// Each request is POST {base_url}/messages carrying "x-api-key" (when a key
// is set) and "anthropic-version: 2023-06-01"; the body comes from
// request_builder.h. HTTP errors go through the shared classifier
// (../error_body.h, which reads Anthropic's
// {"type":"error","error":{...},"request_id"} bodies); the request id is
// read from "request-id". Streaming, transport outcomes and cancellation are
// StreamingProvider's (streaming_provider.h); only message_stop completes an
// answer, anything short of it is a truncated stream.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <memory>
#include <string>

#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "daemon/providers/provider_options.h"
#include "daemon/providers/streaming_provider.h"

namespace raw::providers::anthropic {

// The API version every request names (still the SDK's constant).
inline constexpr char kAnthropicVersion[] = "2023-06-01";

class AnthropicProvider : public StreamingProvider {
 public:
  // An empty `api_key` sends no x-api-key header (a local gateway). The
  // endpoint is "{base_url}/messages".
  AnthropicProvider(config::ModelConfig model, http::HttpClient& http, std::string api_key,
                    CacheRetention cache_retention = CacheRetention::k5m);
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
