// GoogleProvider: the Provider for the google-generate-content method (the
// Gemini API's streamGenerateContent with alt=sse).
//
// One Stream() call is one HTTP request, POST
// {base_url}/models/{model_id}:streamGenerateContent?alt=sse with the key in
// the "x-goog-api-key" header (never in the URL), and no retries (the retry
// policy lives above providers). A model_id that already names a resource
// ("models/x", "tunedModels/y") is used as that path. The body bytes go
// through SseDecoder and StreamDecoder and every event reaches the sink as
// soon as its bytes arrive. A status outside 2xx is collected and classified
// (error_classifier.h); a 200 application/json body (the API's non-SSE
// array form) is decoded whole. Transport outcomes of HttpClient become
// ErrorEvents: cancellation -> kCancelled, idle deadline -> kTimeout, a
// connection that failed -> kNetwork, a body cut off -> kPrematureEof (but a
// response whose finishReason had arrived is complete: Gemini has no
// terminator after it). ProviderOptions::prompt_cache_key is not used: the
// Gemini API takes no cache fields, its implicit cache matches on the stable
// request prefix.
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
#include "daemon/providers/provider.h"
#include "daemon/providers/provider_factory.h"

namespace raw::providers::google {

class GoogleProvider : public Provider {
 public:
  // `api_key` is sent as "x-goog-api-key" when not empty.
  GoogleProvider(config::ModelConfig model, http::HttpClient& http, std::string api_key);

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) override;

  // "{base_url}/models/{model_id}:streamGenerateContent?alt=sse".
  std::string endpoint() const;

 private:
  config::ModelConfig model_;
  http::HttpClient& http_;
  std::string api_key_;
};

// The factory entry for the google-generate-content method. The provider
// borrows `http`, which must outlive it.
std::unique_ptr<Provider> MakeGoogleProvider(const config::ModelConfig& model,
                                             http::HttpClient& http, std::string api_key,
                                             const ProviderOptions& options);

}  // namespace raw::providers::google
