// GoogleProvider: the Provider for the google-generate-content method (the
// Gemini API's streamGenerateContent with alt=sse).
//
// Each request is POST {base_url}/models/{model_id}:streamGenerateContent
// ?alt=sse with the key in the "x-goog-api-key" header (never in the URL).
// A model_id that already names a resource ("models/x", "tunedModels/y") is
// used as that path. Errors are classified by error_classifier.h; the
// request id is read from "x-request-id". Streaming, transport outcomes and
// cancellation are StreamingProvider's (streaming_provider.h); a 200
// application/json body is the API's non-SSE array form. A response whose
// finishReason had arrived is complete even if the connection then fails:
// Gemini has no terminator after it. ProviderOptions::prompt_cache_key is
// not used: the Gemini API takes no cache fields, its implicit cache matches
// on the stable request prefix.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <memory>
#include <string>

#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider_options.h"
#include "daemon/providers/streaming_provider.h"

namespace raw::providers::google {

class GoogleProvider : public StreamingProvider {
 public:
  // `api_key` is sent as "x-goog-api-key" when not empty. The endpoint is
  // "{base_url}/models/{model_id}:streamGenerateContent?alt=sse".
  GoogleProvider(config::ModelConfig model, http::HttpClient& http, std::string api_key);
};

// The factory entry for the google-generate-content method. The provider
// borrows `http`, which must outlive it.
std::unique_ptr<Provider> MakeGoogleProvider(const config::ModelConfig& model,
                                             http::HttpClient& http, std::string api_key,
                                             const ProviderOptions& options);

}  // namespace raw::providers::google
