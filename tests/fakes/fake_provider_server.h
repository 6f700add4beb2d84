// FakeProviderServer: an HTTP/1.1 server on 127.0.0.1 that answers every
// request, whatever its path, with the next scripted response, and records
// each request for later assertions. Tests point the HTTP client, a provider
// adapter or a whole daemon at base_url().
//
// It is written on plain sockets rather than an HTTP library because tests
// need control that libraries hide: each body chunk flushed on its own, a
// stream cut off without its terminating chunk, and a stream parked at a
// gate until the test lets it go (to exercise interrupts and idle timeouts).
//
// Every response uses chunked transfer encoding and "Connection: close" (one
// request per connection), unless a script writes its own bytes
// (ScriptedResponse::Framing) or keeps the connection open for the next
// request, as a real provider does (ScriptedResponse::End::kKeepOpen). When the script has run out
// the server answers 500 with an OpenAI-style JSON error and counts the request in
// unscripted_requests().
//
// Ownership and threads: the server owns an accept thread and one thread per
// connection; Stop() (or the destructor) releases parked gates, unblocks and
// joins all of them. Every public method is thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/json.h"

namespace raw::testing {

class SocketReader;

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct ScriptedResponse {
  enum class End {
    kComplete,  // terminating chunk, then close
    kCut,       // close right after the last chunk, without the terminator
    kReset,     // reset the connection (TCP RST) right after the last chunk
    // The terminating chunk, without "Connection: close"; the connection
    // then waits for the client's next request (chunked framing only).
    kKeepOpen,
  };
  enum class Framing {
    kChunked,  // status line, headers, chunked body (the fields below)
    // Only the chunks, verbatim: no status line, no headers, no chunk
    // framing (`status` and `headers` are ignored). The test writes the
    // whole response, or none of it (no chunks and End::kReset: a reset
    // before the first byte). kComplete and kCut both just close.
    kRaw,
  };

  int status = 200;
  // Sent as given. Without a Content-Type among them the server adds
  // text/event-stream for status 200 and application/json otherwise.
  HeaderList headers;
  // Each written as one chunk and flushed separately; empty ones are skipped.
  std::vector<std::string> chunks;
  End end = End::kComplete;
  Framing framing = Framing::kChunked;
  // The server parks before writing chunks[*gate_before_chunk] (or, when it
  // equals chunks.size(), before ending the response) until ReleaseGate().
  // The status line and headers are always sent before the gate.
  std::optional<size_t> gate_before_chunk;
  // Writes chunks[repeat_chunk] this many times in all (0 or 1 = once): a
  // huge stream without holding it in memory. Stops early when the client
  // closes the connection.
  size_t repeat_chunk = 0;
  size_t repeat_times = 0;
  // A pause before each chunk after the first, as a provider paces its
  // stream: for benchmarks of steady streaming, and for a trickle slower
  // than the client's idle timeout (the test then waits for the client's
  // error, never for time). The pause ends early when the client closes
  // the connection.
  std::chrono::microseconds chunk_interval{0};
};

struct RecordedRequest {
  std::string method;
  std::string path;  // the request target, query included
  HeaderList headers;
  std::string body;
  // When the whole request had been read.
  std::chrono::steady_clock::time_point received;

  // Case-insensitive; "" when absent.
  std::string Header(std::string_view name) const;
  absl::StatusOr<Json> BodyJson() const;
};

class FakeProviderServer {
 public:
  // Binds 127.0.0.1:0 and starts serving; check status().
  FakeProviderServer();
  ~FakeProviderServer();
  FakeProviderServer(const FakeProviderServer&) = delete;
  FakeProviderServer& operator=(const FakeProviderServer&) = delete;

  // Why the server could not start, or OK.
  absl::Status status() const { return status_; }
  int port() const { return port_; }
  // "http://127.0.0.1:<port>/v1"
  std::string base_url() const;

  void Enqueue(ScriptedResponse response);
  // Answers the first request whose target (path and query) contains
  // `target_part` with `response`, ahead of the Enqueue()d ones: for
  // requests that arrive concurrently in no fixed order (a search batch).
  void EnqueueFor(std::string target_part, ScriptedResponse response);
  size_t pending_responses() const;
  // Answers the requests that neither EnqueueFor() nor Enqueue() scripted,
  // from the request itself (nullopt: the "script ran out" error): for
  // tests whose daemon may send any number of requests in any order, such
  // as the crash harness, which kills and restarts it at random points.
  // Called on the connection's thread, outside the server's lock.
  using Responder = std::function<std::optional<ScriptedResponse>(const RecordedRequest&)>;
  void SetResponder(Responder responder);

  std::vector<RecordedRequest> requests() const;
  // The only request so far; adds a test failure unless there was exactly one.
  RecordedRequest single_request() const;
  // Requests answered with the "script ran out" error.
  size_t unscripted_requests() const;
  // Connections accepted so far (a client that keeps its connection open
  // sends many requests over one).
  size_t connections() const;
  // True once at least `count` requests were recorded, false on timeout.
  bool WaitForRequestCount(size_t count, absl::Duration timeout = absl::Seconds(10));

  // True once a response is parked at its gate (and not yet released).
  bool WaitForGate(absl::Duration timeout = absl::Seconds(10));
  // Releases the longest-parked response; when none is parked, the next gate
  // reached passes without stopping.
  void ReleaseGate();
  // True once the client closed (or reset) the connection of the
  // longest-parked response while it was parked: how a test sees that an
  // interrupted client aborted its transfer rather than waiting it out.
  // False when nothing is parked, or after `timeout`. Waits on the socket
  // (poll), not by sleeping.
  bool WaitForClientCloseAtGate(absl::Duration timeout = absl::Seconds(10));

  // Closes every connection (parked ones included) and joins all threads.
  // Idempotent.
  void Stop();

 private:
  void AcceptLoop();
  void Serve(int fd);
  bool ServeRequest(int fd, SocketReader& reader);
  bool ParkAtGate(int fd);  // false when the server is stopping
  ScriptedResponse NextResponse(const RecordedRequest& request);
  void CloseConnection(int fd);

  absl::Status status_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  int port_ = 0;
  std::thread accept_thread_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<ScriptedResponse> script_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, ScriptedResponse>> routed_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const Responder> responder_ ABSL_GUARDED_BY(mu_);
  std::vector<RecordedRequest> requests_ ABSL_GUARDED_BY(mu_);
  size_t unscripted_ ABSL_GUARDED_BY(mu_) = 0;
  size_t connections_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int> open_fds_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> connection_threads_ ABSL_GUARDED_BY(mu_);
  // Gates: parked responses hold tickets [released_tickets_, next_ticket_).
  size_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  size_t released_tickets_ ABSL_GUARDED_BY(mu_) = 0;
  size_t release_credits_ ABSL_GUARDED_BY(mu_) = 0;
  // The connection of each parked response, by ticket.
  std::map<size_t, int> parked_fds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::testing
