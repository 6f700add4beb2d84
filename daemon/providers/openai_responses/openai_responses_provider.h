// OpenAiResponsesProvider: the Provider for the openai-responses method
// (OpenAI's Responses API, and servers that implement it, such as Ollama).
//
// Each request is POST {base_url}/responses in the stateless form
// (store:false, the whole history each time, encrypted reasoning included
// and replayed; see request_builder.h), with the headers of
// OpenAiRequestHeaders (../openai_headers.h). Error bodies are OpenAI's, so
// HTTP errors go through the shared classifier (../error_body.h); the request
// id is read from "x-request-id". Streaming, transport outcomes and
// cancellation are StreamingProvider's (streaming_provider.h); only a
// terminal event (response.completed, .incomplete, .failed) completes an
// answer.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider_options.h"
#include "daemon/providers/streaming_provider.h"

namespace raw::providers::openai_responses {

class OpenAiResponsesProvider : public StreamingProvider {
 public:
  // `api_key` is sent as "Authorization: Bearer <key>" when set;
  // `prompt_cache_key` as the body's "prompt_cache_key" when set. The
  // endpoint is "{base_url}/responses".
  OpenAiResponsesProvider(config::ModelConfig model, http::HttpClient& http,
                          std::optional<std::string> api_key,
                          std::optional<std::string> prompt_cache_key = std::nullopt);
};

}  // namespace raw::providers::openai_responses

namespace raw::providers {

// The factory entry for the openai-responses method. An empty `api_key`
// sends no Authorization header. The provider borrows `http`.
std::unique_ptr<Provider> MakeOpenAiResponsesProvider(const config::ModelConfig& model,
                                                      http::HttpClient& http, std::string api_key,
                                                      const ProviderOptions& options);

}  // namespace raw::providers
