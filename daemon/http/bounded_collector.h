// BoundedCollector: an HttpResponseHandler that keeps the status, the
// headers and at most `limit` body bytes, for fetches of pages of unknown
// size (builtin/web_fetch, Raven's Source verifier).
//
// A body longer than the limit is cut there and the transfer aborted
// (cut()); the body of a redirect (3xx) is not read at all. Either way
// stopped() is true and Send returns kAborted, which the caller tells from
// a real failure by stopped(). One transfer per collector; not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "daemon/http/http_client.h"

namespace raw::http {

class BoundedCollector : public HttpResponseHandler {
 public:
  explicit BoundedCollector(size_t limit) : limit_(limit) {}

  void OnStatus(int status, const Headers& headers) override {
    status_ = status;
    headers_ = headers;
  }

  bool OnBody(std::string_view bytes) override {
    if (status_ >= 300 && status_ < 400) {
      stopped_ = true;  // the body of a redirect is of no use
      return false;
    }
    size_t room = limit_ - body_.size();
    if (bytes.size() > room) {
      body_.append(bytes.substr(0, room));
      cut_ = stopped_ = true;
      return false;
    }
    body_.append(bytes);
    return true;
  }

  int status() const { return status_; }
  const Headers& headers() const { return headers_; }
  const std::string& body() const { return body_; }
  std::string TakeBody() { return std::move(body_); }
  bool cut() const { return cut_; }
  bool stopped() const { return stopped_; }

 private:
  const size_t limit_;
  int status_ = 0;
  Headers headers_;
  std::string body_;
  bool cut_ = false;
  bool stopped_ = false;
};

}  // namespace raw::http
