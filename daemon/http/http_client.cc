#include "daemon/http/http_client.h"

#include "absl/strings/match.h"

namespace raw::http {

std::string FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (absl::EqualsIgnoreCase(key, absl::string_view(name.data(), name.size()))) return value;
  }
  return "";
}

std::string PiecedBody::Joined() const {
  size_t size = head.size();
  for (const auto& piece : shared) size += piece->size();
  std::string text;
  text.reserve(size);
  text += head;
  for (const auto& piece : shared) text += *piece;
  return text;
}

size_t HttpRequest::body_size() const {
  size_t size = body.size();
  for (const auto& piece : more_body) size += piece->size();
  return size;
}

void HttpRequest::SetBody(PiecedBody pieced) {
  body = std::move(pieced.head);
  more_body = std::move(pieced.shared);
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
