// JsonRpcPeer: the client side of one JSON-RPC connection over an
// McpTransport. It numbers requests, matches responses to waiting callers,
// routes progress notifications to the request that asked for them, answers
// the server's requests, and cancels what the caller gave up on.
//
// Server requests: `ping` is answered with {}; others go to the request
// handler (McpClient answers `roots/list` when it offers roots); a method it
// does not answer gets -32601 (Raw offers no sampling or elicitation).
// Responses to unknown ids (late
// replies to cancelled requests) and progress for unknown tokens are dropped.
// A handler that throws nlohmann's JSON exception (a field of an unexpected
// type) never lets it reach the transport's thread: a request is answered
// -32603, a notification is logged and dropped.
//
// An answer the transport cannot send (a server that floods the client with
// requests and reads none of the answers) is logged rate-limited.
//
// Ownership: does not own the transport; the owner wires Callbacks() into it
// and keeps both alive together.
// Thread-safety: Call and Notify may run on any number of threads at once.
// Progress callbacks run on the thread that called Call, never on a
// transport thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/mcp/json_rpc.h"
#include "daemon/mcp/log_rate_limiter.h"
#include "daemon/mcp/transport.h"

namespace raw::mcp {

struct RequestOptions {
  int64_t timeout_ms = 60000;  // 0 = no limit
  const CancelToken* cancel = nullptr;
  // When set, the request carries a progressToken and each progress
  // notification's params are passed here (on the calling thread).
  std::function<void(const Json& params)> on_progress;
  // initialize must never be cancelled with notifications/cancelled.
  bool send_cancel_notification = true;
};

class JsonRpcPeer {
 public:
  using NotificationHandler = std::function<void(const Message& notification)>;
  // The result for a server request, or nullopt for "method not found".
  // Runs on a transport thread; must not block.
  using RequestHandler =
      std::function<std::optional<Json>(const std::string& method, const Json& params)>;

  JsonRpcPeer(std::string server_name, McpTransport& transport,
              NotificationHandler on_notification, RequestHandler on_request = nullptr);
  // Logs how many failed answers went unlogged, if any.
  ~JsonRpcPeer();
  JsonRpcPeer(const JsonRpcPeer&) = delete;
  JsonRpcPeer& operator=(const JsonRpcPeer&) = delete;

  // Callbacks for McpTransport::Start. `on_closed` additionally runs after
  // the peer failed every pending call.
  TransportCallbacks Callbacks(std::function<void(const absl::Status&)> on_closed);

  // Sends a request and waits for its response. Errors: the transport's
  // status; DeadlineExceeded after timeout_ms; Cancelled when `cancel`
  // fired (both send notifications/cancelled, without waiting for the
  // server to take it); an error response becomes
  // an error status carrying the JSON-RPC error (see RpcErrorOf).
  absl::StatusOr<Json> Call(const std::string& method, Json params, const RequestOptions& options);
  // Sends a notification; with `cancel`, stops waiting for the server to
  // take it once the token fires.
  absl::Status Notify(const std::string& method, Json params, const CancelToken* cancel = nullptr);

  // Fails every pending call with `reason` and every later one too.
  void Shutdown(const absl::Status& reason);
  bool shut_down() const;

 private:
  struct Pending {
    bool done = false;
    absl::StatusOr<Json> result = Json();
    bool wants_progress = false;
    std::deque<Json> progress;
  };

  // Runs HandleMessage with a backstop for JSON type errors.
  void OnMessage(const Json& value);
  void HandleMessage(const Json& value);
  // Whether to log one more message that could not be handled (and logs
  // the summary of those dropped before it).
  bool AdmitInvalidLog();
  void OnRequestFailed(const Json& id, const absl::Status& status);
  void Complete(int64_t id, absl::StatusOr<Json> result);
  void Abandon(int64_t id, const RequestOptions& options, const std::string& reason);

  const std::string server_name_;
  McpTransport& transport_;
  NotificationHandler on_notification_;
  RequestHandler on_request_;
  LogRateLimiter answer_log_limit_;
  // Messages it could not take (invalid, or a handler's slip): a server
  // may send millions, one batch line of `[{},{},...]` a million of them.
  LogRateLimiter invalid_log_limit_;

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> shutdown_ ABSL_GUARDED_BY(mu_);
};

// The JSON-RPC error object ({code, message, data?}) an error status from
// Call carries; nullopt for other statuses.
std::optional<Json> RpcErrorOf(const absl::Status& status);

}  // namespace raw::mcp
