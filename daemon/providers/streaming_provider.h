// StreamingProvider: what every HTTP streaming adapter shares. One Stream()
// call is one HTTP request (POST, JSON body, the model's connect and idle
// timeouts), with no retries (the retry policy lives above providers, see
// retrying_provider.h). An adapter describes its API in a StreamingApi (URL
// path, headers, body, a fresh VendorDecoder per response, its error
// classifier and request-id header) and is a thin subclass that only builds
// that description; this class does the rest, the same way for every API:
//
// - A 2xx text/event-stream body goes through SseDecoder into the
//   VendorDecoder, and every event reaches the sink as soon as its bytes
//   arrive. Reading stops at the terminal event.
// - A 2xx application/json body (a server that ignored stream:true) is
//   collected (at most 32 MiB) and decoded whole.
// - A status outside 2xx: the body is collected (at most 64 KiB, so a
//   proxy's HTML page is cut) and classified by the API's classifier.
// - A 2xx text/html page (a login page, a web UI at the base URL) is not an
//   answer: a kUnknown error quoting the page's title, not retried.
// - A 2xx with an empty body: a retryable kPrematureEof saying so.
// - Transport outcomes of HttpClient become ErrorEvents: cancellation ->
//   kCancelled, idle or connect deadline -> kTimeout (the idle one naming
//   models.<name>.idle_timeout_seconds), a connection that failed ->
//   kNetwork (not retryable when HttpClient says the request cannot
//   succeed as configured: kFailedPrecondition, a refused TLS certificate),
//   a body cut off -> kPrematureEof (or a normal finish when the decoder
//   says the answer was already whole).
// - Every ErrorEvent without a request id gets the response's request-id
//   header; Stream() returns ErrorEventToStatus of it, OK after a Finish.
//
// Ownership: borrows the HttpClient, which must outlive the provider.
// Thread-compatible: one Stream() at a time (see provider.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/vendor_decoder.h"

namespace raw::providers {

// Turns a response whose status is outside 2xx into its ErrorEvent; `now`
// reads a retry-after HTTP date. Pure.
using HttpErrorClassifier = ErrorEvent (*)(int status, const http::Headers& headers,
                                           std::string_view body, absl::Time now);

// How one API is spoken over HTTP: all that an adapter contributes.
struct StreamingApi {
  std::string path;  // appended to the model's base_url after one '/'
  http::Headers headers;
  std::string_view request_id_header;  // the response header with the request id
  HttpErrorClassifier classify_http_error = nullptr;
  // The body, its history shared with the session (serialized_history.h).
  std::function<http::PiecedBody(const ModelRequest&)> build_body;
  // A fresh decoder for each response.
  std::function<std::unique_ptr<VendorDecoder>()> new_decoder;
};

class StreamingProvider : public Provider {
 public:
  StreamingProvider(config::ModelConfig model, http::HttpClient& http, StreamingApi api);

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) final;
  void Prepare(const ModelRequest& request) final;

  // The URL Stream() posts to: "{base_url}/{path}" with one slash between
  // the parts.
  const std::string& endpoint() const { return url_; }

 private:
  config::ModelConfig model_;
  http::HttpClient& http_;
  StreamingApi api_;
  std::string url_;
};

}  // namespace raw::providers
