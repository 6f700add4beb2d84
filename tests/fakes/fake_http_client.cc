#include "tests/fakes/fake_http_client.h"

#include <poll.h>

#include <cerrno>
#include <utility>

#include "gtest/gtest.h"

namespace raw::testing {
namespace {

// Bounds a hold that the test never releases, so a broken test fails
// instead of hanging.
constexpr int kHoldLimitMs = 30000;

// Waits for `cancel`; returns false when the limit passed first.
bool WaitForCancel(const CancelToken& cancel) {
  pollfd pfd{cancel.fd(), POLLIN, 0};
  while (!cancel.cancelled()) {
    int n = poll(&pfd, 1, kHoldLimitMs);
    if (n == 0) return false;
    if (n < 0 && errno != EINTR) return false;
  }
  return true;
}

// The end of a transfer whose handler became Done() after `delivered`
// chunks, as CurlHttpClient ends it: the rest is dropped; a response that
// ends on its own ends with its status, one that holds past that point or
// sends more than the trailing bytes' limit is aborted.
absl::Status AfterDone(const FakeHttpResponse& response, size_t delivered) {
  if (response.hold_after_chunks.has_value() && *response.hold_after_chunks >= delivered) {
    return absl::AbortedError("the response went on after its handler was done");
  }
  int64_t trailing = 0;
  for (size_t i = delivered; i < response.chunks.size(); ++i) {
    trailing += static_cast<int64_t>(response.chunks[i].size());
  }
  if (trailing > http::HttpResponseHandler::kMaxTrailingBytes) {
    return absl::AbortedError("the response sent too much after its handler was done");
  }
  return response.end_status;
}

}  // namespace

std::vector<std::string> SplitEvery(std::string_view body, size_t size) {
  std::vector<std::string> chunks;
  if (size == 0) size = 1;
  for (size_t pos = 0; pos < body.size(); pos += size) {
    chunks.emplace_back(body.substr(pos, size));
  }
  return chunks;
}

void FakeHttpClient::Enqueue(FakeHttpResponse response) {
  absl::MutexLock lock(&mu_);
  responses_.push_back(std::move(response));
}

absl::Status FakeHttpClient::Send(const http::HttpRequest& request,
                                  http::HttpResponseHandler& handler,
                                  const CancelToken& cancel) {
  FakeHttpResponse response;
  {
    absl::MutexLock lock(&mu_);
    // Recorded with its body in one string, as a server would read it.
    http::HttpRequest recorded = request;
    recorded.SetBody({http::PiecedBody{request.body, request.more_body}.Joined(), {}});
    requests_.push_back(std::move(recorded));
    if (responses_.empty()) {
      return absl::UnavailableError("fake http client: no scripted response for " + request.url);
    }
    response = std::move(responses_.front());
    responses_.pop_front();
  }
  if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
  if (response.status == 0) {
    return response.end_status.ok() ? absl::UnavailableError("connection refused")
                                    : response.end_status;
  }
  handler.OnStatus(response.status, response.headers);
  auto hold = [&]() -> absl::Status {
    {
      absl::MutexLock lock(&mu_);
      ++held_;
    }
    if (!WaitForCancel(cancel)) {
      return absl::DeadlineExceededError("fake http client: held response was never cancelled");
    }
    return absl::CancelledError(cancel.reason());
  };
  for (size_t i = 0; i < response.chunks.size(); ++i) {
    if (response.hold_after_chunks == i) return hold();
    if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
    if (!handler.OnBody(response.chunks[i])) return absl::AbortedError("aborted by the handler");
    if (handler.Done()) return AfterDone(response, i + 1);
  }
  if (response.hold_after_chunks == response.chunks.size()) return hold();
  if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
  return response.end_status;
}

std::vector<http::HttpRequest> FakeHttpClient::requests() const {
  absl::MutexLock lock(&mu_);
  return requests_;
}

http::HttpRequest FakeHttpClient::single_request() const {
  absl::MutexLock lock(&mu_);
  if (requests_.size() != 1) {
    ADD_FAILURE() << "expected exactly one request, got " << requests_.size();
    return requests_.empty() ? http::HttpRequest{} : requests_.back();
  }
  return requests_[0];
}

void FakeHttpClient::WaitUntilHeld() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* held) { return *held > 0; }, &held_));
}

}  // namespace raw::testing
