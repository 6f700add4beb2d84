#include "daemon/providers/openai_chat/openai_chat_provider.h"

#include <memory>
#include <utility>

#include "daemon/providers/error_body.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "daemon/providers/openai_chat/stream_decoder.h"
#include "daemon/providers/openai_headers.h"

namespace raw::providers::openai_chat {
namespace {

StreamingApi ChatApi(const config::ModelConfig& model, const std::optional<std::string>& api_key,
                     std::optional<std::string> prompt_cache_key) {
  StreamingApi api;
  api.path = "chat/completions";
  api.headers = OpenAiRequestHeaders(api_key);
  api.request_id_header = "x-request-id";
  api.classify_http_error = &error_body::ClassifyHttpError;
  api.build_body = [model,
                    prompt_cache_key = std::move(prompt_cache_key)](const ModelRequest& request) {
    return BuildRequest(request, model, prompt_cache_key);
  };
  api.new_decoder = [] { return std::make_unique<StreamDecoder>(); };
  return api;
}

}  // namespace

OpenAiChatProvider::OpenAiChatProvider(config::ModelConfig model, http::HttpClient& http,
                                       std::optional<std::string> api_key,
                                       std::optional<std::string> prompt_cache_key)
    : StreamingProvider(model, http, ChatApi(model, api_key, std::move(prompt_cache_key))) {}

}  // namespace raw::providers::openai_chat
