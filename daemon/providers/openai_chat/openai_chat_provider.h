// OpenAiChatProvider: the Provider for the openai-chat-completions method
// (OpenAI and the compatible servers: DeepSeek, Ollama, llama-server).
//
// Each request is POST {base_url}/chat/completions with "Authorization:
// Bearer <key>" when a key is set (../openai_headers.h); the body comes from
// request_builder.h, errors are classified by the shared ../error_body.h and
// the request id is read from "x-request-id". Streaming, transport outcomes
// and cancellation are StreamingProvider's (streaming_provider.h). An answer
// whose finish_reason arrived is complete even if the connection then fails
// before [DONE].
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <optional>
#include <string>

#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/streaming_provider.h"

namespace raw::providers::openai_chat {

class OpenAiChatProvider : public StreamingProvider {
 public:
  // `api_key` is sent as "Authorization: Bearer <key>" when set;
  // `prompt_cache_key` as the body's "prompt_cache_key" when set. The
  // endpoint is "{base_url}/chat/completions".
  OpenAiChatProvider(config::ModelConfig model, http::HttpClient& http,
                     std::optional<std::string> api_key,
                     std::optional<std::string> prompt_cache_key = std::nullopt);
};

}  // namespace raw::providers::openai_chat
