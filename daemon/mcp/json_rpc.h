// JSON-RPC 2.0 messages as MCP uses them: classification of what a server
// sent, and builders for what the client sends. Pure functions, no I/O.
//
// MCP forbids batches since 2025-06-18, but a 2025-03-26 server may still
// send a JSON array; ParseMessages accepts one and yields its elements.
// Request ids are strings or integers, never null.
//
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::mcp {

// Standard JSON-RPC error codes used by the client.
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

enum class MessageKind {
  kRequest,        // method + id
  kNotification,   // method, no id
  kResponse,       // id + result
  kErrorResponse,  // id + error
};

struct Message {
  MessageKind kind = MessageKind::kNotification;
  Json id;             // null for notifications
  std::string method;  // requests and notifications
  Json params;         // requests and notifications; null when absent
  Json result;         // kResponse
  int error_code = 0;  // kErrorResponse
  std::string error_message;
  Json error_data;  // kErrorResponse; null when absent
};

// Classifies one parsed JSON value. InvalidArgument (saying why) when it is
// not a JSON-RPC 2.0 message.
absl::StatusOr<Message> ClassifyMessage(const Json& value);

// Parses one framed message (a line on stdio, an SSE data field or an HTTP
// body) into one or more messages (more than one only for a batch array).
absl::StatusOr<std::vector<Message>> ParseMessages(std::string_view text);

Json MakeRequest(int64_t id, std::string_view method, Json params);
Json MakeNotification(std::string_view method, Json params);
Json MakeResult(const Json& id, Json result);
Json MakeError(const Json& id, int code, std::string_view message);

// True for a request (method and id).
bool IsRequest(const Json& message);
// The id of a request or response, or null.
Json MessageId(const Json& message);

// "Message 5: ..." fragments of errors name ids this way.
std::string IdToString(const Json& id);

}  // namespace raw::mcp
