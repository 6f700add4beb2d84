#include "daemon/providers/extra_headers.h"

#include <utility>

namespace raw::providers {
namespace {

// Owns the wrapping client for as long as the provider that uses it.
class ProviderWithClient : public Provider {
 public:
  ProviderWithClient(std::unique_ptr<http::HttpClient> client, std::unique_ptr<Provider> provider)
      : client_(std::move(client)), provider_(std::move(provider)) {}

  absl::Status Stream(const ModelRequest& request, ProviderEventSink& sink,
                      const CancelToken& cancel) override {
    return provider_->Stream(request, sink, cancel);
  }
  void Prepare(const ModelRequest& request) override { provider_->Prepare(request); }

 private:
  // Declared first, destroyed last: the provider borrows it.
  std::unique_ptr<http::HttpClient> client_;
  std::unique_ptr<Provider> provider_;
};

}  // namespace

ExtraHeadersHttpClient::ExtraHeadersHttpClient(http::HttpClient& inner, http::Headers headers)
    : inner_(inner), headers_(std::move(headers)) {}

absl::Status ExtraHeadersHttpClient::Send(const http::HttpRequest& request,
                                          http::HttpResponseHandler& handler,
                                          const CancelToken& cancel) {
  http::HttpRequest with_headers = request;
  with_headers.headers.insert(with_headers.headers.end(), headers_.begin(), headers_.end());
  return inner_.Send(with_headers, handler, cancel);
}

std::unique_ptr<Provider> WithExtraHeaders(
    http::HttpClient& http, http::Headers headers,
    const std::function<std::unique_ptr<Provider>(http::HttpClient&)>& make) {
  if (headers.empty()) return make(http);
  auto client = std::make_unique<ExtraHeadersHttpClient>(http, std::move(headers));
  std::unique_ptr<Provider> provider = make(*client);
  return std::make_unique<ProviderWithClient>(std::move(client), std::move(provider));
}

}  // namespace raw::providers
