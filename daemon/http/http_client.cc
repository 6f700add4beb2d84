#include "daemon/http/http_client.h"

#include "absl/strings/match.h"

namespace raw::http {

std::string FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, absl::string_view(name.data(), name.size()))) return value;
  }
  return "";
}

namespace {

// Keeps the whole response in memory; meant for small bodies.
class CollectingHandler : public HttpResponseHandler {
 public:
  explicit CollectingHandler(HttpResponse* response) : response_(response) {}

  void OnStatus(int status, const Headers& headers) override {
    response_->status = status;
    response_->headers = headers;
  }

  bool OnBody(std::string_view bytes) override {
    response_->body.append(bytes);
    return true;
  }

 private:
  HttpResponse* response_;
};

}  // namespace

absl::Status SendAndCollect(HttpClient& client, const HttpRequest& request,
                            const CancelToken& cancel, HttpResponse* response) {
  *response = HttpResponse{};
  CollectingHandler handler(response);
  return client.Send(request, handler, cancel);
}

}  // namespace raw::http
