#include "daemon/mcp/http_transport.h"

#include <poll.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/thread_start.h"
#include "daemon/mcp/json_rpc.h"
#include "daemon/mcp/log_text.h"

namespace raw::mcp {
namespace {

constexpr int kMaxListenFailures = 5;
constexpr int64_t kMaxListenBackoffMs = 30000;
// The most a server's `retry` makes the transport wait (it also keeps the
// listening stream's doubling from overflowing).
constexpr int64_t kMaxRetryMs = 30000;

// Waits `ms` unless `cancel` fires first; false when it fired.
bool WaitUnlessCancelled(const CancelToken& cancel, int64_t ms) {
  if (cancel.cancelled()) return false;
  pollfd fd{cancel.fd(), POLLIN, 0};
  poll(&fd, 1, static_cast<int>(std::clamp<int64_t>(ms, 0, 600000)));
  return !cancel.cancelled();
}

// The answer to a notification or response POST. The server has nothing to
// say to either (the specification says it answers 202 without a body), so
// an event stream in answer is left at once rather than read until the
// server ends it, which a server may never do. A JSON body is read.
class PostAnswer : public http::HttpResponseHandler {
 public:
  PostAnswer(ResponseReader& reader, CancelToken& transfer)
      : reader_(reader), transfer_(transfer) {}

  void OnStatus(int status, const http::Headers& headers) override {
    reader_.OnStatus(status, headers);
    if (!reader_.is_sse()) return;
    left_stream_ = true;
    transfer_.Cancel("an event stream answered a notification");
  }
  bool OnBody(std::string_view bytes) override { return !left_stream_ && reader_.OnBody(bytes); }
  bool left_stream() const { return left_stream_; }

 private:
  ResponseReader& reader_;
  CancelToken& transfer_;
  bool left_stream_ = false;
};

bool IsValidSessionId(const std::string& id) {
  if (id.empty()) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

}  // namespace

std::string PublicEndpoint(const std::string& url) {
  std::string out = url.substr(0, url.find_first_of("?#"));
  size_t scheme = out.find("://");
  size_t at = out.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  size_t slash = out.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (scheme != std::string::npos && at != std::string::npos &&
      (slash == std::string::npos || at < slash)) {
    out = absl::StrCat(out.substr(0, scheme + 3), out.substr(at + 1));
  }
  return out;
}

HttpTransport::HttpTransport(HttpTransportOptions options) : options_(std::move(options)) {}

HttpTransport::~HttpTransport() { Close(); }

absl::Status HttpTransport::Start(TransportCallbacks callbacks) {
  if (options_.client == nullptr) {
    return absl::FailedPreconditionError("no HTTP client is available for MCP over HTTP");
  }
  std::string lower = absl::AsciiStrToLower(options_.url);
  if (!absl::StartsWith(lower, "http://") && !absl::StartsWith(lower, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat("the url of MCP server \"", options_.server_name,
                                                   "\" must start with http:// or https://"));
  }
  callbacks_ = std::move(callbacks);
  return absl::OkStatus();
}

std::string HttpTransport::Describe() const { return PublicEndpoint(options_.url); }

std::string HttpTransport::session_id() const {
  absl::MutexLock lock(&mu_);
  return session_id_;
}

absl::Status HttpTransport::Send(const Json& message) {
  std::string body = DumpJson(message);
  if (!IsRequest(message)) return PostSync(body, nullptr);
  Json id = MessageId(message);
  return Launch("a request", id, false,
                [this, id, body](const CancelToken& cancel) { RunRequest(id, body, cancel); });
}

absl::Status HttpTransport::SendUnlessCancelled(const Json& message, const CancelToken& cancel) {
  if (IsRequest(message)) return Send(message);
  return PostSync(DumpJson(message), &cancel);
}

void HttpTransport::SendDetached(const Json& message) {
  if (IsRequest(message)) {
    McpTransport::SendDetached(message);
    return;
  }
  std::string body = DumpJson(message);
  std::string method = message.value("method", "");
  absl::Status launched =
      Launch(method, nullptr, false, [this, body, method](const CancelToken& cancel) {
        absl::Status sent = PostSync(body, &cancel);
        if (!sent.ok() && !cancel.cancelled()) {
          RAW_LOG(Warning) << "mcp server " << options_.server_name << ": could not send " << method
                           << ": " << sent.message();
        }
      });
  // Nothing waits for a detached message: one not sent is only logged.
  if (absl::IsResourceExhausted(launched)) {
    RAW_LOG(Warning) << "mcp server " << options_.server_name << ": " << method
                     << " was not sent: " << launched.message();
  }
}

absl::Status HttpTransport::Launch(std::string_view what, Json request_id, bool listening,
                                   std::function<void(const CancelToken&)> body) {
  JoinFinishedWorkers();
  absl::MutexLock lock(&mu_);
  if (closed_) return absl::FailedPreconditionError("the connection is closed");
  Worker& worker = workers_.emplace_back();
  worker.cancel = std::make_shared<CancelToken>();
  worker.request_id = std::move(request_id);
  worker.listening = listening;
  // The new thread blocks on mu_ (held here) before marking itself done, so
  // worker.thread is assigned by then. std::list keeps `worker` in place.
  absl::StatusOr<std::thread> thread =
      StartThread(absl::StrCat(std::string(what), " to MCP server \"", options_.server_name, "\""),
                  [this, &worker, cancel = worker.cancel, body = std::move(body)] {
                    body(*cancel);
                    absl::MutexLock done_lock(&mu_);
                    worker.done = true;
                  });
  if (!thread.ok()) {
    workers_.pop_back();  // `worker`, which no thread uses
    return thread.status();
  }
  worker.thread = *std::move(thread);
  return absl::OkStatus();
}

void HttpTransport::JoinFinishedWorkers() {
  std::list<Worker> finished;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if (it->done) finished.splice(finished.end(), workers_, it);
      it = next;
    }
  }
  for (Worker& worker : finished) worker.thread.join();
}

http::HttpRequest HttpTransport::MakeRequest(const std::string& method, const std::string& body,
                                             const std::string& last_event_id) const {
  http::HttpRequest request;
  request.method = method;
  request.url = options_.url;
  request.body = body;
  request.connect_timeout_ms = options_.connect_timeout_ms;
  if (method == "POST") {
    request.headers.emplace_back("Content-Type", "application/json");
    request.headers.emplace_back("Accept", "application/json, text/event-stream");
  } else if (method == "GET") {
    request.headers.emplace_back("Accept", "text/event-stream");
  }
  {
    absl::MutexLock lock(&mu_);
    if (!session_id_.empty()) request.headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) {
      request.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
    }
  }
  if (!last_event_id.empty()) request.headers.emplace_back("Last-Event-ID", last_event_id);
  for (const auto& header : options_.headers) request.headers.push_back(header);
  return request;
}

ResponseReader HttpTransport::MakeReader(const Json& awaited_id) {
  return ResponseReader(
      awaited_id, options_.max_message_bytes,
      [this](const Json& message) { callbacks_.on_message(message); },
      [this](int status, const http::Headers& headers) {
        if (status < 200 || status >= 300) return;
        std::string id = http::FindHeader(headers, "Mcp-Session-Id");
        absl::MutexLock lock(&mu_);
        // The server issues the session on the initialize response.
        if (session_id_.empty() && IsValidSessionId(id)) session_id_ = id;
      });
}

absl::Status HttpTransport::HttpFailure(int status, const std::string& body) const {
  std::string description = DescribeHttpError(status, body);
  bool had_session;
  {
    absl::MutexLock lock(&mu_);
    had_session = !session_id_.empty();
  }
  // The specification says 404; servers built on the TypeScript SDK answer
  // 400 "No valid session ID provided".
  if (had_session &&
      (status == 404 ||
       (status == 400 && absl::StrContains(absl::AsciiStrToLower(body), "session")))) {
    return SessionExpiredError(
        absl::StrCat("the server no longer knows the session (", description, ")"));
  }
  if (status == 401 || status == 403) {
    return absl::PermissionDeniedError(absl::StrCat(
        description, "; the server wants credentials (see the headers of this server)"));
  }
  return absl::UnavailableError(absl::StrCat(Describe(), " answered ", description));
}

void HttpTransport::Fail(const Json& id, const absl::Status& status) {
  if (callbacks_.on_request_failed) callbacks_.on_request_failed(id, status);
}

void HttpTransport::RunRequest(const Json& id, const std::string& body, const CancelToken& cancel) {
  ResponseReader reader = MakeReader(id);
  absl::Status sent = options_.client->Send(MakeRequest("POST", body, ""), reader, cancel);
  if (cancel.cancelled() || reader.got_awaited()) return;
  if (reader.status() == 0) {
    Fail(id,
         absl::UnavailableError(absl::StrCat("cannot reach ", Describe(), ": ", sent.message())));
    return;
  }
  if (!reader.ok_status()) {
    Fail(id, HttpFailure(reader.status(), reader.body()));
    return;
  }
  if (reader.overflowed()) {
    Fail(id, absl::ResourceExhaustedError(absl::StrCat("the server sent a message larger than ",
                                                       options_.max_message_bytes, " bytes")));
    return;
  }
  if (!reader.is_sse()) {
    if (sent.ok() && !reader.Finish()) {
      Fail(id, absl::FailedPreconditionError("the server's answer is not JSON-RPC"));
    } else if (!reader.got_awaited()) {
      Fail(id, absl::UnavailableError(
                   sent.ok() ? absl::StrCat("the server answered HTTP ", reader.status(),
                                            " without a JSON-RPC response")
                             : absl::StrCat("the answer was cut off: ", sent.message())));
    }
    return;
  }
  if (reader.last_event_id().empty()) {
    Fail(id, absl::UnavailableError(
                 absl::StrCat("the server's event stream ended before the response",
                              sent.ok() ? "" : absl::StrCat(" (", sent.message(), ")"),
                              " and cannot be resumed (no event id)")));
    return;
  }
  Resume(id, reader.last_event_id(), reader.retry_ms().value_or(options_.default_retry_ms), cancel);
}

int64_t HttpTransport::RetryDelay(int64_t retry_ms) const {
  return std::clamp(retry_ms, std::min(options_.min_retry_ms, kMaxRetryMs), kMaxRetryMs);
}

void HttpTransport::Resume(const Json& id, std::string last_event_id, int64_t retry_ms,
                           const CancelToken& cancel) {
  int attempts = 0;
  while (attempts < options_.max_resume_attempts) {
    if (!WaitUnlessCancelled(cancel, RetryDelay(retry_ms))) return;
    RAW_LOG(Info) << "mcp server " << options_.server_name << ": resuming a broken response stream";
    ResponseReader reader = MakeReader(id);
    absl::Status sent =
        options_.client->Send(MakeRequest("GET", "", last_event_id), reader, cancel);
    if (cancel.cancelled() || reader.got_awaited()) return;
    if (reader.status() != 0 && !reader.ok_status()) {
      absl::Status failure = HttpFailure(reader.status(), reader.body());
      if (IsSessionExpired(failure)) {
        // The server accepted the request before its stream broke and may
        // have carried it out: sending it again in a new session could run
        // a tool twice. The request fails; the next one, refused in the old
        // session, starts the new one.
        failure = absl::AbortedError(
            absl::StrCat("the server lost the session during the call; it may have run (",
                         DescribeHttpError(reader.status(), reader.body()), ")"));
      }
      Fail(id, failure);
      return;
    }
    if (!reader.last_event_id().empty() && reader.last_event_id() != last_event_id) {
      last_event_id = reader.last_event_id();
      attempts = 0;
    } else {
      ++attempts;
    }
    if (reader.retry_ms().has_value()) retry_ms = *reader.retry_ms();
  }
  Fail(id, absl::UnavailableError(
               absl::StrCat("the response stream broke and could not be resumed after ",
                            options_.max_resume_attempts, " attempts")));
}

void HttpTransport::RunListenStream(const CancelToken& cancel) {
  std::string last_event_id;
  int failures = 0;
  int64_t retry_ms = options_.default_retry_ms;
  while (!cancel.cancelled()) {
    ResponseReader reader = MakeReader(nullptr);
    absl::Status sent =
        options_.client->Send(MakeRequest("GET", "", last_event_id), reader, cancel);
    if (cancel.cancelled()) return;
    if (reader.status() == 405) return;  // the server offers no such stream
    if (reader.status() != 0 && (!reader.ok_status() || !reader.is_sse())) {
      RAW_LOG(Info) << "mcp server " << options_.server_name << ": the listening stream got "
                    << LogText(DescribeHttpError(reader.status(), reader.body()));
      return;
    }
    if (!reader.last_event_id().empty()) last_event_id = reader.last_event_id();
    if (reader.retry_ms().has_value()) retry_ms = *reader.retry_ms();
    failures = reader.events() > 0 ? 0 : failures + 1;
    if (failures >= kMaxListenFailures) {
      RAW_LOG(Warning) << "mcp server " << options_.server_name
                       << ": giving up the listening stream: " << sent.message();
      return;
    }
    // A server that answers `retry: 0` and ends each stream at once (with an
    // event, so the failures never mount) is still reconnected at most every
    // min_retry_ms.
    int64_t wait =
        std::min<int64_t>(RetryDelay(retry_ms) << std::min(failures, 10), kMaxListenBackoffMs);
    if (!WaitUnlessCancelled(cancel, wait)) return;
  }
}

absl::Status HttpTransport::PostSync(const std::string& body, const CancelToken* cancel) {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::FailedPreconditionError("the connection is closed");
  }
  // One token for the transfer, fired by the caller's or by Close(). Once
  // RemoveCallback returns, neither forward runs any more, so it may live
  // on this stack.
  CancelToken post;
  auto forward = [&post](const CancelToken& from) {
    return from.OnCancel([&post, &from] { post.Cancel(from.reason()); });
  };
  int closing_callback = forward(closing_);
  int caller_callback = cancel != nullptr ? forward(*cancel) : 0;
  ResponseReader reader = MakeReader(nullptr);
  PostAnswer answer(reader, post);
  http::HttpRequest request = MakeRequest("POST", body, "");
  request.total_timeout_ms = options_.post_timeout_ms;
  absl::Status sent = options_.client->Send(request, answer, post);
  closing_.RemoveCallback(closing_callback);
  if (cancel != nullptr) cancel->RemoveCallback(caller_callback);
  if (answer.left_stream()) return absl::OkStatus();
  if (post.cancelled()) return absl::CancelledError(post.reason());
  if (reader.status() == 0) {
    return absl::UnavailableError(absl::StrCat("cannot reach ", Describe(), ": ", sent.message()));
  }
  if (!reader.ok_status()) return HttpFailure(reader.status(), reader.body());
  reader.Finish();  // a server may answer a notification with messages
  return absl::OkStatus();
}

void HttpTransport::SetProtocolVersion(const std::string& protocol_version) {
  absl::MutexLock lock(&mu_);
  protocol_version_ = protocol_version;
}

void HttpTransport::OnInitialized() {
  {
    absl::MutexLock lock(&mu_);
    if (!options_.listen_stream || listening_ || closed_) return;
    listening_ = true;
  }
  absl::Status launched = Launch("the listening stream", nullptr, true,
                                 [this](const CancelToken& cancel) { RunListenStream(cancel); });
  if (absl::IsResourceExhausted(launched)) {
    // Requests still work; what the server would send on its own (a
    // list_changed) is missed until the session starts again.
    RAW_LOG(Warning) << "mcp server " << options_.server_name << ": " << launched.message();
    absl::MutexLock lock(&mu_);
    listening_ = false;
  }
}

void HttpTransport::ResetSession() {
  absl::MutexLock lock(&mu_);
  session_id_.clear();
  protocol_version_.clear();
  listening_ = false;
  for (Worker& worker : workers_) {
    if (worker.listening) worker.cancel->Cancel("the session ended");
  }
}

void HttpTransport::Abandon(const Json& request_id) {
  absl::MutexLock lock(&mu_);
  for (Worker& worker : workers_) {
    if (!worker.request_id.is_null() && worker.request_id == request_id) {
      worker.cancel->Cancel("abandoned");
    }
  }
}

void HttpTransport::Close() {
  std::list<Worker> workers;
  std::string session;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    closing_.Cancel("closed");
    for (Worker& worker : workers_) worker.cancel->Cancel("closed");
    workers.swap(workers_);
    session = session_id_;
  }
  for (Worker& worker : workers) worker.thread.join();
  if (session.empty() || options_.client == nullptr) return;
  http::HttpRequest request = MakeRequest("DELETE", "", "");
  request.total_timeout_ms = options_.delete_timeout_ms;
  http::HttpResponse response;
  CancelToken never;
  absl::Status deleted = http::SendAndCollect(*options_.client, request, never, &response);
  if (!deleted.ok()) {
    RAW_LOG(Info) << "mcp server " << options_.server_name
                  << ": ending the session failed: " << deleted.message();
  }
}

}  // namespace raw::mcp
