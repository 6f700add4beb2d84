// HttpClient: the one seam through which the daemon speaks HTTP (providers,
// later MCP over HTTP, web_fetch and Raven). The real implementation is
// CurlHttpClient; tests use it against servers on 127.0.0.1.
//
// Contract for every implementation (fakes included):
// - Send() blocks the calling thread until the transfer ends, and may be
//   called from several threads at once.
// - The handler's callbacks run on the calling thread, in order: OnStatus
//   once (after all response headers), then OnBody zero or more times with
//   the bytes as they arrive (never decoded, split anywhere).
// - Returning false from OnBody aborts the transfer; Send then returns
//   kAborted.
// - Once Done() is true (checked after each OnBody), the handler gets no
//   more bytes. The rest of the response is read and dropped, so that a
//   response that ends on its own leaves its connection open for the next
//   request; when it does not end within kTrailingGraceMs, or sends more
//   than kMaxTrailingBytes, the transfer is aborted as if OnBody had
//   returned false (its connection is closed).
// - Cancelling `cancel` aborts the transfer promptly (no waiting for the
//   next byte); Send returns kCancelled.
// - When no byte arrives for `idle_timeout_ms` (0 = no limit), Send returns
//   kDeadlineExceeded; so does a connection not made within
//   connect_timeout_ms, with a message that starts "connecting to".
//   Connection failures return kUnavailable with the reason (the system's
//   words where it gave any, such as "Connection refused"); a transfer cut
//   off mid-body returns kUnavailable too, after the bytes that did arrive
//   were delivered. A server whose TLS certificate is refused, or a CA
//   file that cannot be read, returns kFailedPrecondition: retrying the
//   same request cannot succeed.
// - A request with public_addresses_only never opens a connection to a
//   non-public address; Send returns kPermissionDenied naming it.
// - OK means the server completed the response; the status code (including
//   4xx/5xx) was passed to OnStatus.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/cancel_token.h"

namespace raw::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive lookup; returns "" when absent.
std::string FindHeader(const Headers& headers, std::string_view name);

// Pieces of a request body that their maker keeps as well (a session's
// serialized history, providers/serialized_history.h), so that a large one
// is sent without being copied into one string. A piece never changes while
// a request holds it.
using BodyPieces = std::vector<std::shared_ptr<const std::string>>;

// A body as `head` followed by `shared`; Joined() is the whole text.
struct PiecedBody {
  std::string head;
  BodyPieces shared;

  std::string Joined() const;
};

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  Headers headers;
  // The body is `body` followed by each of `more_body`, in order.
  std::string body;
  BodyPieces more_body;
  int64_t connect_timeout_ms = 15000;
  int64_t idle_timeout_ms = 0;
  // Overall limit; 0 = none (streams may legitimately run for a long time).
  int64_t total_timeout_ms = 0;
  // Connect only to public addresses (ip_address.h): every address the
  // client is about to connect to, after name resolution and on every
  // attempt, is checked, and a non-public one is never connected to; Send
  // then fails with kPermissionDenied naming the address and why. No proxy
  // is used for such a request, so the address checked is the server's own.
  bool public_addresses_only = false;
  // Filled by Send when set: when the request's first byte was sent and how
  // long connection setup took (for the step timeline).
  struct Times {
    int64_t first_byte_sent_ns = 0;  // steady clock; 0 = never sent
    int64_t network_setup_ns = 0;    // name resolution, TCP and TLS
  };
  Times* times = nullptr;

  size_t body_size() const;
  void SetBody(PiecedBody pieced);
};

class HttpResponseHandler {
 public:
  // How long a response may go on after its handler is Done(), and how
  // many more bytes it may send, before the transfer is aborted. A server
  // ends its body right after the last event (the same write, usually);
  // the grace only bounds one that does not.
  static constexpr int64_t kTrailingGraceMs = 50;
  static constexpr int64_t kMaxTrailingBytes = 64 * 1024;

  virtual ~HttpResponseHandler() = default;
  virtual void OnStatus(int status, const Headers& headers) = 0;
  virtual bool OnBody(std::string_view bytes) = 0;
  // True once the handler needs nothing more of the body (a stream's
  // terminal event has arrived).
  virtual bool Done() const { return false; }
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual absl::Status Send(const HttpRequest& request, HttpResponseHandler& handler,
                            const CancelToken& cancel) = 0;
  // Does ahead of time the one-time work of the first Send (loading and
  // initializing the HTTP library), so that a request about to come does
  // not wait for it. May block for milliseconds: call it off the threads
  // that answer clients. Safe beside Send and more than once.
  virtual void Prepare() {}
};

// Convenience for small non-streaming requests: collects status, headers and
// body.
struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
};
absl::Status SendAndCollect(HttpClient& client, const HttpRequest& request,
                            const CancelToken& cancel, HttpResponse* response);

}  // namespace raw::http
