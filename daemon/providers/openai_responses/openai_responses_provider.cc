#include "daemon/providers/openai_responses/openai_responses_provider.h"

#include <utility>

#include "daemon/providers/error_body.h"
#include "daemon/providers/openai_headers.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/openai_responses/stream_decoder.h"

namespace raw::providers::openai_responses {
namespace {

StreamingApi ResponsesApi(const config::ModelConfig& model,
                          const std::optional<std::string>& api_key,
                          std::optional<std::string> prompt_cache_key) {
  StreamingApi api;
  api.path = "responses";
  api.headers = OpenAiRequestHeaders(api_key);
  api.request_id_header = "x-request-id";
  // Error bodies are OpenAI's, as on Chat Completions.
  api.classify_http_error = &error_body::ClassifyHttpError;
  api.build_body = [model,
                    prompt_cache_key = std::move(prompt_cache_key)](const ModelRequest& request) {
    return BuildRequest(request, model, prompt_cache_key);
  };
  api.new_decoder = [] { return std::make_unique<StreamDecoder>(); };
  return api;
}

}  // namespace

OpenAiResponsesProvider::OpenAiResponsesProvider(config::ModelConfig model, http::HttpClient& http,
                                                 std::optional<std::string> api_key,
                                                 std::optional<std::string> prompt_cache_key)
    : StreamingProvider(model, http, ResponsesApi(model, api_key, std::move(prompt_cache_key))) {}

}  // namespace raw::providers::openai_responses

namespace raw::providers {

std::unique_ptr<Provider> MakeOpenAiResponsesProvider(const config::ModelConfig& model,
                                                      http::HttpClient& http, std::string api_key,
                                                      const ProviderOptions& options) {
  std::optional<std::string> key;
  if (!api_key.empty()) key = std::move(api_key);
  return std::make_unique<openai_responses::OpenAiResponsesProvider>(model, http, std::move(key),
                                                                     options.prompt_cache_key);
}

}  // namespace raw::providers
