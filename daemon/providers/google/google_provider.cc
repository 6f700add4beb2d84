#include "daemon/providers/google/google_provider.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/google/error_classifier.h"
#include "daemon/providers/google/request_builder.h"
#include "daemon/providers/google/stream_decoder.h"

namespace raw::providers::google {
namespace {

StreamingApi GenerateContentApi(const config::ModelConfig& model, const std::string& api_key) {
  absl::string_view model_id = model.model_id;
  while (absl::ConsumePrefix(&model_id, "/")) {
  }
  StreamingApi api;
  // "gemini-2.5-pro" is short for the resource "models/gemini-2.5-pro".
  api.path = absl::StrCat(absl::StrContains(model_id, '/') ? "" : "models/", model_id,
                          ":streamGenerateContent?alt=sse");
  if (!api_key.empty()) api.headers.emplace_back("x-goog-api-key", api_key);
  api.headers.emplace_back("Content-Type", "application/json");
  api.headers.emplace_back("Accept", "text/event-stream");
  api.request_id_header = "x-request-id";
  api.classify_http_error = &ClassifyHttpError;
  api.build_body = [model](const ModelRequest& request) { return BuildRequest(request, model); };
  api.new_decoder = [] { return std::make_unique<StreamDecoder>(); };
  return api;
}

}  // namespace

GoogleProvider::GoogleProvider(config::ModelConfig model, http::HttpClient& http,
                               std::string api_key)
    : StreamingProvider(model, http, GenerateContentApi(model, api_key)) {}

std::unique_ptr<Provider> MakeGoogleProvider(const config::ModelConfig& model,
                                             http::HttpClient& http, std::string api_key,
                                             const ProviderOptions& /*options*/) {
  return std::make_unique<GoogleProvider>(model, http, std::move(api_key));
}

}  // namespace raw::providers::google
