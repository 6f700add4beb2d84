// ExtraHeaders: the headers a model's config adds (models.<n>.headers, with
// their variables expanded) go out on every request of its provider, after
// the API's own headers. They are added by wrapping the HttpClient the
// provider talks through, so every API sends them the same way without
// knowing of them.
//
// Header values may be secrets: nothing here logs them.
// Thread-safety: ExtraHeadersHttpClient is as thread-safe as the client it
// wraps; the provider WithExtraHeaders returns is thread-compatible like
// every Provider.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers {

// Forwards every request to `inner` with `headers` appended. Borrows
// `inner`, which must outlive it.
class ExtraHeadersHttpClient : public http::HttpClient {
 public:
  ExtraHeadersHttpClient(http::HttpClient& inner, http::Headers headers);

  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken& cancel) override;

 private:
  http::HttpClient& inner_;
  const http::Headers headers_;
};

// The provider `make` builds on an ExtraHeadersHttpClient over `http`; the
// result owns that client. `http` must outlive the result. With no headers,
// `make(http)` itself.
std::unique_ptr<Provider> WithExtraHeaders(
    http::HttpClient& http, http::Headers headers,
    const std::function<std::unique_ptr<Provider>(http::HttpClient&)>& make);

}  // namespace raw::providers
