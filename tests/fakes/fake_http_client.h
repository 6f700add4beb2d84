// FakeHttpClient: an in-memory HttpClient that answers each Send() with the
// next scripted response and records every request.
//
// It keeps the HttpClient contract (http_client.h): OnStatus once, then the
// scripted body chunks in order through OnBody; OnBody returning false ends
// the transfer with kAborted; once the handler is Done() the rest is not
// delivered (a hold or too many bytes after that point end it with
// kAborted, as the real client's grace would); a cancelled token ends it with kCancelled (also
// while a response is held, see FakeHttpResponse::hold_after_chunks: the
// fake waits on the token's fd, no sleeping). A response with status 0
// simulates a connection that never produced a status line.
//
// Thread-safe: Send() may run on several threads; the test thread may call
// Enqueue(), requests() and WaitUntilHeld() concurrently with it.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "daemon/http/http_client.h"

namespace raw::testing {

struct FakeHttpResponse {
  int status = 200;  // 0: no response at all; Send returns end_status
  http::Headers headers = {{"Content-Type", "text/event-stream"}};
  std::vector<std::string> chunks;  // the body, one OnBody call each
  // After this many chunks the transfer waits until the token is cancelled
  // (as a server that stops sending would).
  std::optional<size_t> hold_after_chunks;
  // What Send returns once every chunk was delivered: OK for a completed
  // response, kUnavailable for a cut-off body, kDeadlineExceeded for an idle
  // timeout.
  absl::Status end_status;
};

// `body` cut into pieces of at most `size` bytes.
std::vector<std::string> SplitEvery(std::string_view body, size_t size);

class FakeHttpClient : public http::HttpClient {
 public:
  FakeHttpClient() = default;
  FakeHttpClient(const FakeHttpClient&) = delete;
  FakeHttpClient& operator=(const FakeHttpClient&) = delete;

  void Enqueue(FakeHttpResponse response);

  // A request with no scripted response left gets kUnavailable.
  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken& cancel) override;

  std::vector<http::HttpRequest> requests() const;
  // The one request made; records a test failure unless there was exactly one.
  http::HttpRequest single_request() const;

  // Blocks until some transfer is held (hold_after_chunks reached).
  void WaitUntilHeld();

 private:
  mutable absl::Mutex mu_;
  std::deque<FakeHttpResponse> responses_ ABSL_GUARDED_BY(mu_);
  std::vector<http::HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
  int held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::testing
