// JsonRpc: JSON-RPC 2.0 over a Transport, as ACP uses it: both sides send
// requests, so incoming requests and notifications go to a Handler while
// responses to this side's own requests are matched by id against the
// pending table.
//
// Incoming messages are checked here and refused with the standard errors
// before any handler sees them: unparseable text -32700 (id null), a batch
// (array) or anything that is not a JSON-RPC 2.0 request, notification or
// response -32600. A request is answered exactly once, through Reply or
// ReplyError, at any later time; answering an id that was already answered
// or cancelled does nothing. `$/cancel_request` for a pending incoming
// request answers it -32800 at once and tells the handler (OnCancelled) so
// that the work behind it stops; its later answer is dropped.
// Notifications never get an answer, not even an error.
//
// Threading: one owner thread (the event loop): Receive and every other
// method run there, and the handler is called there.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "clients/acp/transport.h"
#include "common/json.h"

namespace raw::acp {

namespace rpc_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kRequestCancelled = -32800;
// ACP: an unknown session id (data.sessionId names it).
inline constexpr int kResourceNotFound = -32002;
}  // namespace rpc_code

struct RpcError {
  int code = rpc_code::kInternalError;
  std::string message;
  Json data;  // null: none
};

// The JSON-RPC error for a daemon (or bridge) status: INVALID_ARGUMENT
// -32602, NOT_FOUND -32002, CANCELLED -32800, anything else -32603; the
// message is the status message.
RpcError ErrorFromStatus(const absl::Status& status);

// One serialized error response (no line end).
std::string ErrorResponse(const Json& id, const RpcError& error);

// The answer to one of this side's requests: a result or an error.
struct RpcResponse {
  bool ok = false;
  Json result;
  RpcError error;
};

class JsonRpc {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // A request; answer it with Reply or ReplyError (now or later).
    virtual void OnRequest(const Json& id, const std::string& method, const Json& params) = 0;
    virtual void OnNotification(const std::string& method, const Json& params) = 0;
    // `$/cancel_request` cancelled the pending request `id` (already
    // answered -32800).
    virtual void OnCancelled(const Json& /*id*/) {}
  };
  using ResponseCallback = std::function<void(const RpcResponse&)>;

  JsonRpc(std::shared_ptr<Transport> transport, Handler& handler);

  // One received message (a line or a frame).
  void Receive(std::string_view text);

  void Reply(const Json& id, Json result);
  void ReplyError(const Json& id, const RpcError& error);
  // True while the incoming request `id` waits for its answer.
  bool Pending(const Json& id) const;

  // Sends a request; `callback` gets its answer (never called when the
  // request is forgotten first). Returns the id used.
  Json Request(const std::string& method, Json params, ResponseCallback callback);
  // The answer to `id` no longer matters: it is dropped when it comes.
  void Forget(const Json& id);
  // Sends `$/cancel_request` for the outgoing `id` and forgets it.
  void CancelRequest(const Json& id);
  void Notify(const std::string& method, Json params);

 private:
  void Send(const Json& message);
  void OnResponse(const Json& message);

  std::shared_ptr<Transport> transport_;
  Handler& handler_;
  int64_t next_id_ = 0;
  // Keyed by the serialized id.
  std::map<std::string, ResponseCallback> outgoing_;
  std::set<std::string> incoming_;
};

}  // namespace raw::acp
