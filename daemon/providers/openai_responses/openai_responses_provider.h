// OpenAiResponsesProvider: the Provider for the openai-responses method
// (OpenAI's Responses API, and servers that implement it, such as Ollama).
//
// One Stream() call is one HTTP request, POST {base_url}/responses, in the
// stateless form (store:false, the whole history each time, encrypted
// reasoning included and replayed; see request_builder.h), with no retries
// (the retry policy lives above providers). The body bytes go through
// SseDecoder and StreamDecoder and every event reaches the sink as soon as
// its bytes arrive. A status outside 2xx is collected and classified with
// the Chat Completions classifier (the error bodies are the same); a 200
// application/json body (a server that ignored stream:true) is decoded
// whole. Transport outcomes of HttpClient become ErrorEvents: cancellation
// -> kCancelled, idle deadline -> kTimeout, a connection that failed ->
// kNetwork, a body cut off -> kPrematureEof.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/provider_factory.h"

namespace raw::providers::openai_responses {

class OpenAiResponsesProvider : public Provider {
 public:
  // `api_key` is sent as "Authorization: Bearer <key>" when set;
  // `prompt_cache_key` as the body's "prompt_cache_key" when set.
  OpenAiResponsesProvider(config::ModelConfig model, http::HttpClient& http,
                          std::optional<std::string> api_key,
                          std::optional<std::string> prompt_cache_key = std::nullopt);

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) override;

  // "{base_url}/responses" (one slash between the parts).
  std::string endpoint() const;

 private:
  config::ModelConfig model_;
  http::HttpClient& http_;
  std::optional<std::string> api_key_;
  std::optional<std::string> prompt_cache_key_;
};

}  // namespace raw::providers::openai_responses

namespace raw::providers {

// The factory entry for the openai-responses method. An empty `api_key`
// sends no Authorization header. The provider borrows `http`.
std::unique_ptr<Provider> MakeOpenAiResponsesProvider(const config::ModelConfig& model,
                                                      http::HttpClient& http,
                                                      std::string api_key,
                                                      const ProviderOptions& options);

}  // namespace raw::providers
