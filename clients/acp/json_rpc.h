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
// request tells the handler (OnCancelled), which either answers it itself
// when the work behind it has stopped, or leaves it to JsonRpc: answered
// -32800 at once, its later answer dropped.
// A request whose id is longer than kMaxIdBytes, or that would make more
// than kMaxPendingRequests wait, is refused -32600 before its handler runs.
// Notifications never get an answer, not even an error. A JSON type error
// thrown while a message is handled (a field of an unexpected type) never
// leaves Receive: a request is answered -32603, anything else is logged.
// Answers to this side's requests are read type by type: an error whose
// code or message has another type reads as -32603 with a message saying so.
//
// Threading: one owner thread (the event loop): Receive and every other
// method run there, and the handler is called there.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// The most requests of the client's that wait for their answers at once:
// each keeps its id and the work behind it (a call to rawd). Requests
// beyond it are refused (-32600) until answers come.
inline constexpr size_t kMaxPendingRequests = 1024;
// The longest request id taken (its serialized form): ids are kept while
// their request waits. Longer ones are refused (-32600) with id null.
inline constexpr size_t kMaxIdBytes = 1024;

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

// The key of a request id: its serialized form, as the client wrote it
// (`1` and `1.0` are two ids, and `"1"` a third). JsonRpc keys its
// pending requests by it, so every comparison of ids goes through it too:
// Json's own == takes 1 and 1.0 for the same id.
std::string IdKey(const Json& id);
// True when `a` and `b` are the same request id (IdKey).
bool SameId(const Json& a, const Json& b);

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
    // `$/cancel_request` for the pending request `id`. Returns true when
    // the handler stops the work and answers the request itself as it ends
    // (a prompt answers `cancelled` once its turn's last update is out);
    // false: JsonRpc answers it -32800 now and drops the late answer.
    virtual bool OnCancelled(const Json& /*id*/) { return false; }
  };
  using ResponseCallback = std::function<void(const RpcResponse&)>;

  JsonRpc(std::shared_ptr<Transport> transport, Handler& handler);
  // Sends the text chunk held back.
  ~JsonRpc();

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

  // A `session/update` text chunk (`kind` is agent_message_chunk or
  // agent_thought_chunk). Chunks of one kind for one session that follow
  // each other while the owner thread is busy go out as one notification,
  // their texts joined: a burst of a hundred deltas that rawd streams within
  // a millisecond costs the client one line, not a hundred, and no delta
  // waits behind the conversion and writing of the others. A chunk goes out
  // at the latest when the tasks already queued on the owner thread have run
  // (see SetDeferral), and before any other message sent after it, so the
  // wire order is kept. Without a deferral it is sent at once.
  void NotifyTextChunk(const std::string& session_id, const char* kind, std::string_view text);
  // `defer(task)` runs `task` on the owner thread after what is queued there.
  void SetDeferral(std::function<void(std::function<void()>)> defer);
  // Sends the text chunk held back, if any.
  void FlushTextChunk();

 private:
  struct TextChunk {
    std::string session_id;
    const char* kind = "";
    std::string text;
  };

  // Receive without the backstop; sets `request_id` to the id of a request
  // before its handler runs.
  void Dispatch(std::string_view text, Json& request_id);
  void Send(const Json& message);
  // Every message but the held-back chunk goes out here, after that chunk.
  void Write(std::string line);
  void OnResponse(const Json& message);

  std::shared_ptr<Transport> transport_;
  Handler& handler_;
  int64_t next_id_ = 0;
  // Keyed by IdKey.
  std::map<std::string, ResponseCallback> outgoing_;
  std::set<std::string> incoming_;
  std::function<void(std::function<void()>)> defer_;
  std::optional<TextChunk> chunk_;
  bool flush_deferred_ = false;
  // Tells a deferred flush that this object is gone.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace raw::acp
