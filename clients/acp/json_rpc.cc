#include "clients/acp/json_rpc.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "common/logging.h"

namespace raw::acp {
namespace {

// JSON-RPC ids are strings, numbers or null.
bool ValidId(const Json& id) { return id.is_string() || id.is_number() || id.is_null(); }

// Reads the literal of a top-level object's "id" member when it is a number
// that parses as a float (the parser keeps no other trace of how it was
// written).
class IdLiteral : public nlohmann::json_sax<Json> {
 public:
  const std::string& literal() const { return literal_; }

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t& text) override {
    if (depth_ == 1 && key_ == "id") literal_ = text;
    return true;
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Enter(); }
  bool key(string_t& key) override {
    if (depth_ == 1) key_ = key;
    return true;
  }
  bool end_object() override { return Leave(); }
  bool start_array(std::size_t) override { return Enter(); }
  bool end_array() override { return Leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Enter() {
    ++depth_;
    if (depth_ > 1) key_.clear();  // a nested value's keys are not the message's
    return true;
  }
  bool Leave() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  std::string key_;
  std::string literal_;
};

// True when the message `text` (already parsed, its "id" a float) writes its
// id as an integer: one beyond 64 bits, which the parser could only keep as
// a double. Echoing that double would answer another id.
bool IdIsAnIntegerBeyond64Bits(std::string_view text) {
  IdLiteral sax;
  if (!Json::sax_parse(text, &sax)) return false;
  const std::string& literal = sax.literal();
  return !literal.empty() && literal.find_first_of(".eE") == std::string::npos;
}

}  // namespace

RpcError ErrorFromStatus(const absl::Status& status) {
  RpcError error;
  error.message = std::string(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      error.code = rpc_code::kInvalidParams;
      break;
    case absl::StatusCode::kNotFound:
      error.code = rpc_code::kResourceNotFound;
      break;
    case absl::StatusCode::kCancelled:
      error.code = rpc_code::kRequestCancelled;
      break;
    default:
      error.code = rpc_code::kInternalError;
      break;
  }
  if (error.message.empty()) error.message = status.ToString();
  return error;
}

std::string IdKey(const Json& id) { return DumpJson(id); }

bool SameId(const Json& a, const Json& b) { return IdKey(a) == IdKey(b); }

std::string ErrorResponse(const Json& id, const RpcError& error) {
  Json body = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) body["data"] = error.data;
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(body)}});
}

JsonRpc::JsonRpc(std::shared_ptr<Transport> transport, Handler& handler)
    : transport_(std::move(transport)), handler_(handler) {}

JsonRpc::~JsonRpc() {
  *alive_ = false;
  FlushTextChunk();
}

void JsonRpc::Send(const Json& message) { Write(DumpJson(message)); }

void JsonRpc::Write(std::string line) {
  FlushTextChunk();
  transport_->Send(std::move(line));
}

void JsonRpc::SetDeferral(std::function<void(std::function<void()>)> defer) {
  defer_ = std::move(defer);
}

void JsonRpc::NotifyTextChunk(const std::string& session_id, const char* kind,
                              std::string_view text) {
  if (chunk_ && (chunk_->session_id != session_id || std::strcmp(chunk_->kind, kind) != 0)) {
    FlushTextChunk();
  }
  if (!chunk_) chunk_ = TextChunk{session_id, kind, ""};
  chunk_->text.append(text);
  if (!defer_) {
    FlushTextChunk();
    return;
  }
  if (flush_deferred_) return;
  flush_deferred_ = true;
  defer_([this, alive = alive_] {
    if (!*alive) return;
    flush_deferred_ = false;
    FlushTextChunk();
  });
}

void JsonRpc::FlushTextChunk() {
  if (!chunk_) return;
  TextChunk chunk = std::move(*chunk_);
  chunk_.reset();
  // One line per streamed chunk: written directly, byte for byte what
  // DumpJson gives for the same notification as a Json (whose keys are
  // sorted; JsonRpcTest compares the two).
  std::string line;
  line.reserve(chunk.text.size() + chunk.session_id.size() + 160);
  JsonWriter w(line);
  w.BeginObject().Key("jsonrpc").String("2.0").Key("method").String("session/update");
  w.Key("params").BeginObject().Key("sessionId").String(chunk.session_id);
  w.Key("update").BeginObject();
  w.Key("content").BeginObject().Key("text").String(chunk.text).Key("type").String("text");
  w.EndObject();
  w.Key("sessionUpdate").String(chunk.kind);
  w.EndObject().EndObject().EndObject();
  transport_->Send(std::move(line));
}

void JsonRpc::Receive(std::string_view text) {
  // A backstop: the handlers read what the client sent type by type, but a
  // value of an unexpected type that slipped through must not end the
  // process (and with it every other connection of `--listen`). A request
  // is answered -32603; anything else is logged and dropped.
  Json id;
  try {
    Dispatch(text, id);
  } catch (const nlohmann::json::exception& e) {
    RAW_LOG(Error) << "a message from the client could not be handled: " << e.what();
    if (!id.is_null() && Pending(id)) {
      ReplyError(id, {rpc_code::kInternalError,
                      absl::StrCat("raw-acp could not handle this request: ", e.what()), nullptr});
    }
  }
}

void JsonRpc::Dispatch(std::string_view text, Json& request_id) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok()) {
    Write(ErrorResponse(nullptr, {rpc_code::kParseError,
                                             absl::StrCat("parse error: ", parsed.status().message()),
                                             nullptr}));
    return;
  }
  const Json& message = *parsed;
  if (!message.is_object()) {
    Write(ErrorResponse(
        nullptr, {rpc_code::kInvalidRequest,
                  message.is_array() ? "batches are not supported: send one message at a time"
                                     : "a JSON-RPC message must be an object",
                  nullptr}));
    return;
  }
  const bool has_id = message.contains("id");
  Json id = has_id && ValidId(message["id"]) ? message["id"] : Json(nullptr);
  auto invalid = [&](const std::string& why) {
    Write(ErrorResponse(id, {rpc_code::kInvalidRequest, why, nullptr}));
  };
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    // Without an id it may be a notification, which gets no answer; but it
    // is not JSON-RPC 2.0 at all, so it is refused like a request.
    invalid("\"jsonrpc\" must be \"2.0\"");
    return;
  }
  if (has_id && !ValidId(message["id"])) {
    invalid("\"id\" must be a string, a number or null");
    return;
  }
  if (id.is_string() && IdKey(id).size() > kMaxIdBytes) {
    id = nullptr;
    invalid(absl::StrCat("\"id\" is longer than ", kMaxIdBytes, " bytes"));
    return;
  }
  if (id.is_number_float() && IdIsAnIntegerBeyond64Bits(text)) {
    // The id cannot be echoed as it was sent: the answer's id is null.
    id = nullptr;
    invalid(
        "\"id\" is an integer beyond 64 bits, which raw-acp cannot echo exactly; use a "
        "smaller integer or a string");
    return;
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (has_id && (message.contains("result") != message.contains("error"))) {
      OnResponse(message);
      return;
    }
    invalid("a message needs a \"method\" (request or notification) or an \"id\" with a "
            "\"result\" or an \"error\" (response)");
    return;
  }
  if (!method->is_string()) {
    invalid("\"method\" must be a string");
    return;
  }
  // ACP's params are objects; a request without params gets {}.
  Json params = message.value("params", Json::object());
  const std::string name = method->get<std::string>();
  if (!has_id) {
    if (!params.is_object()) return;
    if (name == "$/cancel_request") {
      if (!params.contains("requestId")) return;
      Json target = params["requestId"];
      if (!Pending(target)) return;  // answered already, or never asked
      if (handler_.OnCancelled(target)) return;  // answered when it ends
      ReplyError(target, {rpc_code::kRequestCancelled, "the request was cancelled", nullptr});
      return;
    }
    handler_.OnNotification(name, params);
    return;
  }
  if (!params.is_object()) {
    Write(
        ErrorResponse(id, {rpc_code::kInvalidParams, "\"params\" must be an object", nullptr}));
    return;
  }
  if (incoming_.size() >= kMaxPendingRequests) {
    Write(ErrorResponse(
        id, {rpc_code::kInvalidRequest,
             absl::StrCat(kMaxPendingRequests,
                          " requests already wait for their answers; send more as they come"),
             nullptr}));
    return;
  }
  if (!incoming_.insert(IdKey(id)).second) {
    Write(ErrorResponse(
        id, {rpc_code::kInvalidRequest, "a request with this id is still pending", nullptr}));
    return;
  }
  request_id = id;
  handler_.OnRequest(id, name, params);
}

void JsonRpc::OnResponse(const Json& message) {
  auto it = outgoing_.find(IdKey(message["id"]));
  if (it == outgoing_.end()) {
    RAW_LOG(Info) << "dropping a response to an unknown or forgotten request "
                  << DumpJson(message["id"]);
    return;
  }
  ResponseCallback callback = std::move(it->second);
  outgoing_.erase(it);
  RpcResponse response;
  if (message.contains("result")) {
    response.ok = true;
    response.result = message["result"];
  } else {
    // The client's fields are read for what they are: a code that is not
    // an integer or a message that is not a string is not taken.
    const Json& error = message["error"];
    response.error.code = rpc_code::kInternalError;
    if (error.is_object()) {
      auto code = error.find("code");
      if (code != error.end() && code->is_number_integer() && code->get<int64_t>() >= INT32_MIN &&
          code->get<int64_t>() <= INT32_MAX) {
        response.error.code = static_cast<int>(code->get<int64_t>());
      }
      auto text = error.find("message");
      if (text != error.end() && text->is_string())
        response.error.message = text->get<std::string>();
      if (error.contains("data")) response.error.data = error["data"];
    }
    if (response.error.message.empty()) {
      response.error.message = "the client answered with a malformed error";
    }
  }
  callback(response);
}

void JsonRpc::Reply(const Json& id, Json result) {
  if (incoming_.erase(IdKey(id)) == 0) return;
  Send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void JsonRpc::ReplyError(const Json& id, const RpcError& error) {
  if (incoming_.erase(IdKey(id)) == 0) return;
  Write(ErrorResponse(id, error));
}

bool JsonRpc::Pending(const Json& id) const { return incoming_.count(IdKey(id)) > 0; }

Json JsonRpc::Request(const std::string& method, Json params, ResponseCallback callback) {
  Json id = next_id_++;
  outgoing_[IdKey(id)] = std::move(callback);
  Send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  return id;
}

void JsonRpc::Forget(const Json& id) { outgoing_.erase(IdKey(id)); }

void JsonRpc::CancelRequest(const Json& id) {
  if (outgoing_.erase(IdKey(id)) == 0) return;
  Notify("$/cancel_request", Json{{"requestId", id}});
}

void JsonRpc::Notify(const std::string& method, Json params) {
  Send(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace raw::acp
