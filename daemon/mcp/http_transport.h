// HttpTransport: MCP's Streamable HTTP transport (revisions 2025-03-26 and
// later) over the daemon's HttpClient.
//
// Every message is its own POST to the one endpoint, with `Accept:
// application/json, text/event-stream`, the session id the server issued on
// initialize (Mcp-Session-Id), the negotiated MCP-Protocol-Version and the
// configured extra headers. A request's POST runs on its own thread and may
// be answered with a JSON body or an SSE stream carrying progress, server
// requests and finally the response; when such a stream breaks before the
// response, the transport resumes it with a GET carrying Last-Event-ID
// (after the server's `retry` delay, within [min_retry_ms, 30 s]).
// Notifications and responses are posted synchronously (the server answers
// 202, and an event stream in answer is not read): each POST is bounded by
// post_timeout_ms and ends at once when
// the caller's cancel token fires or Close() begins, so a server that
// never answers one cannot hold the caller. SendDetached posts on a worker
// thread instead.
//
// After initialize, a GET stream listens for messages the server sends on
// its own (list_changed, pings); a server answering 405 has none. A 404, or
// a 400 whose body names the session, in answer to a request's POST is
// reported as SessionExpiredError (the server did not take the request, so
// it may be sent again in a new session); in answer to the GET that resumes
// a request's stream it is an Aborted error saying the request may have run
// (the server had accepted it).
// Close() stops every stream and ends the session with DELETE.
//
// Header values are never logged and error messages name the endpoint
// without its query string.
//
// Thread-safety: as McpTransport. Threads: one per request in flight, one
// per detached notification, one for the GET stream; all joined by Close().
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "daemon/http/http_client.h"
#include "daemon/mcp/response_reader.h"
#include "daemon/mcp/transport.h"

namespace raw::mcp {

struct HttpTransportOptions {
  std::string server_name;
  std::string url;
  http::Headers headers;  // extra headers, values already expanded
  http::HttpClient* client = nullptr;
  bool listen_stream = true;  // open the GET stream after initialize
  int64_t connect_timeout_ms = 10000;
  int64_t default_retry_ms = 1000;  // before resuming when the server gave no `retry`
  // The least wait before reconnecting, whatever `retry` the server gave: a
  // server that says 0 and ends each stream at once is not reconnected in a
  // tight loop. (A `retry` past 30 s counts as 30 s.)
  int64_t min_retry_ms = 250;
  int max_resume_attempts = 3;
  size_t max_message_bytes = 64 * 1024 * 1024;
  int64_t delete_timeout_ms = 2000;
  // The whole POST of a notification or response.
  int64_t post_timeout_ms = 10000;
};

class HttpTransport : public McpTransport {
 public:
  explicit HttpTransport(HttpTransportOptions options);
  ~HttpTransport() override;
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  absl::Status Start(TransportCallbacks callbacks) override;
  absl::Status Send(const Json& message) override;
  absl::Status SendUnlessCancelled(const Json& message, const CancelToken& cancel) override;
  void SendDetached(const Json& message) override;
  void SetProtocolVersion(const std::string& protocol_version) override;
  void OnInitialized() override;
  void ResetSession() override;
  void Abandon(const Json& request_id) override;
  void Close() override;
  std::string Describe() const override;

  std::string session_id() const;

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<CancelToken> cancel;
    Json request_id;         // null for the GET stream and detached posts
    bool listening = false;  // the GET stream
    bool done = false;
  };

  // Launches `body` (`what`: "a request", ...) on a worker thread.
  // FailedPrecondition when closing; ResourceExhausted when no thread can
  // be started (`body` then never runs).
  absl::Status Launch(std::string_view what, Json request_id, bool listening,
                      std::function<void(const CancelToken&)> body);
  void JoinFinishedWorkers();
  void RunRequest(const Json& id, const std::string& body, const CancelToken& cancel);
  // GETs with Last-Event-ID until the response to `id` arrived.
  void Resume(const Json& id, std::string last_event_id, int64_t retry_ms,
              const CancelToken& cancel);
  void RunListenStream(const CancelToken& cancel);
  // The wait before reconnecting for a server's `retry`: within
  // [min_retry_ms, kMaxRetryMs].
  int64_t RetryDelay(int64_t retry_ms) const;
  // POSTs a notification or response; gives up when `cancel` fires or the
  // transport closes.
  absl::Status PostSync(const std::string& body, const CancelToken* cancel);
  http::HttpRequest MakeRequest(const std::string& method, const std::string& body,
                                const std::string& last_event_id) const;
  ResponseReader MakeReader(const Json& awaited_id);
  // The status for a failed HTTP exchange.
  absl::Status HttpFailure(int status, const std::string& body) const;
  void Fail(const Json& id, const absl::Status& status);

  const HttpTransportOptions options_;
  TransportCallbacks callbacks_;
  // Cancelled when Close() begins: ends the synchronous POSTs.
  CancelToken closing_;

  mutable absl::Mutex mu_;
  std::string session_id_ ABSL_GUARDED_BY(mu_);
  std::string protocol_version_ ABSL_GUARDED_BY(mu_);
  bool listening_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::list<Worker> workers_ ABSL_GUARDED_BY(mu_);
};

// `url` without user info, query or fragment: safe to show and log.
std::string PublicEndpoint(const std::string& url);

}  // namespace raw::mcp
