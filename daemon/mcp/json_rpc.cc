#include "daemon/mcp/json_rpc.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::mcp {
namespace {

bool IsValidId(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

absl::StatusOr<Message> ClassifyMessage(const Json& value) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError("a JSON-RPC message must be a JSON object");
  }
  auto version = value.find("jsonrpc");
  if (version == value.end() || *version != "2.0") {
    return absl::InvalidArgumentError("the message lacks \"jsonrpc\": \"2.0\"");
  }
  Message message;
  auto id = value.find("id");
  const bool has_id = id != value.end() && !id->is_null();
  if (has_id && !IsValidId(*id)) {
    return absl::InvalidArgumentError("the message id must be a string or an integer");
  }
  if (has_id) message.id = *id;
  auto method = value.find("method");
  if (method != value.end()) {
    if (!method->is_string()) {
      return absl::InvalidArgumentError("the message's \"method\" is not a string");
    }
    message.method = method->get<std::string>();
    // No MCP method is nameless; a request named "" could only be
    // answered "method not found", a notification named "" only ignored.
    if (message.method.empty()) {
      return absl::InvalidArgumentError("the message's \"method\" is empty");
    }
    message.kind = has_id ? MessageKind::kRequest : MessageKind::kNotification;
    if (auto params = value.find("params"); params != value.end()) message.params = *params;
    return message;
  }
  if (!has_id) {
    // An error response to a message the server could not read carries a
    // null id; nothing can be correlated with it.
    return absl::InvalidArgumentError("the message has neither a method nor an id");
  }
  if (auto result = value.find("result"); result != value.end()) {
    message.kind = MessageKind::kResponse;
    message.result = *result;
    return message;
  }
  auto error = value.find("error");
  if (error == value.end() || !error->is_object()) {
    return absl::InvalidArgumentError("a response must carry \"result\" or an \"error\" object");
  }
  message.kind = MessageKind::kErrorResponse;
  if (auto code = error->find("code"); code != error->end() && code->is_number_integer()) {
    message.error_code = code->get<int>();
  }
  if (auto text = error->find("message"); text != error->end() && text->is_string()) {
    message.error_message = text->get<std::string>();
  }
  if (auto data = error->find("data"); data != error->end()) message.error_data = *data;
  return message;
}

absl::StatusOr<std::vector<Message>> ParseMessages(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", parsed.status().message()));
  }
  std::vector<Message> messages;
  if (parsed->is_array()) {
    for (const Json& element : *parsed) {
      absl::StatusOr<Message> message = ClassifyMessage(element);
      if (!message.ok()) return message.status();
      messages.push_back(*std::move(message));
    }
    return messages;
  }
  absl::StatusOr<Message> message = ClassifyMessage(*parsed);
  if (!message.ok()) return message.status();
  messages.push_back(*std::move(message));
  return messages;
}

Json MakeRequest(int64_t id, std::string_view method, Json params) {
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

Json MakeNotification(std::string_view method, Json params) {
  Json message = {{"jsonrpc", "2.0"}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = std::move(params);
  return message;
}

Json MakeResult(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json MakeError(const Json& id, int code, std::string_view message) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"error", {{"code", code}, {"message", std::string(message)}}}};
}

bool IsRequest(const Json& message) {
  return message.is_object() && message.contains("method") && message.contains("id") &&
         !message["id"].is_null();
}

Json MessageId(const Json& message) {
  if (!message.is_object()) return nullptr;
  auto id = message.find("id");
  return id == message.end() ? Json(nullptr) : *id;
}

std::string IdToString(const Json& id) {
  if (id.is_string()) return id.get<std::string>();
  return DumpJson(id);
}

}  // namespace raw::mcp
