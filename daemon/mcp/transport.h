// McpTransport: carries JSON-RPC messages between the client and one MCP
// server. Implementations: StdioTransport (a child process, one message per
// line) and HttpTransport (Streamable HTTP). Tests may add in-memory ones.
//
// Contract for every implementation:
// - Start() is called once, before anything else; it either fails (the
//   server could not be reached or started) or the transport is open.
// - Send() may be called from any thread, including from inside a callback.
//   Messages of one caller are sent in call order. A request (method + id)
//   may be answered asynchronously: when the transport later finds it cannot
//   deliver the request or its response (an HTTP error, a dropped stream
//   that cannot be resumed) it reports on_request_failed(id, status)
//   instead of failing Send().
// - Callbacks run on threads the transport owns, never on the thread of a
//   Send() caller and never after Close() returned. on_message calls may
//   come from several threads at once (one HTTP stream each).
// - on_closed runs at most once, when the connection ends without Close()
//   (the child exited, ...); its status says why.
// - Close() ends the connection as the MCP specification says, waits for the
//   transport's threads and is idempotent.
// - Header and environment values are secrets for all the transport knows:
//   they are never logged or put into error messages.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "common/json.h"

namespace raw::mcp {

struct TransportCallbacks {
  std::function<void(const Json& message)> on_message;
  std::function<void(const Json& request_id, const absl::Status& status)> on_request_failed;
  std::function<void(const absl::Status& reason)> on_closed;
};

class McpTransport {
 public:
  virtual ~McpTransport() = default;

  virtual absl::Status Start(TransportCallbacks callbacks) = 0;
  virtual absl::Status Send(const Json& message) = 0;
  // Send, but stops waiting for the server to take a notification or
  // response once `cancel` fires. Default: Send (for transports whose Send
  // never waits on the server for long).
  virtual absl::Status SendUnlessCancelled(const Json& message, const CancelToken& cancel) {
    (void)cancel;
    return Send(message);
  }
  // Sends a notification without waiting for the server to take it, for a
  // caller that must not be held up by a stalled server (a cancellation);
  // a failure is only logged. Default: Send.
  virtual void SendDetached(const Json& message);
  // The negotiated protocol revision, as soon as initialize succeeded, for
  // transports that announce it on every later message (HTTP's
  // MCP-Protocol-Version header).
  virtual void SetProtocolVersion(const std::string& protocol_version) { (void)protocol_version; }
  // After the `initialized` notification was sent.
  virtual void OnInitialized() {}
  // The server forgot the session (see SessionExpiredError): the next
  // message starts a new one.
  virtual void ResetSession() {}
  // The client stopped waiting for this request's response (cancelled or
  // timed out); a transport may release what it holds for it.
  virtual void Abandon(const Json& request_id) { (void)request_id; }
  virtual void Close() = 0;
  // For status views and errors: "pid 4242" or the endpoint without query.
  virtual std::string Describe() const = 0;
};

// The status a transport reports when the server no longer knows the
// session (HTTP 404, or 400 naming the session) and did not take the
// request: the client starts a new session and retries.
absl::Status SessionExpiredError(std::string message);
bool IsSessionExpired(const absl::Status& status);

}  // namespace raw::mcp
