#include "daemon/providers/anthropic/request_builder.h"

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/providers/anthropic/stream_decoder.h"

namespace raw::providers::anthropic {
namespace {

OrderedJson ToolToJson(const ToolDefinition& tool) {
  OrderedJson out = OrderedJson::object();
  out["name"] = tool.name;
  out["description"] = tool.description;
  // The API requires an object schema; a tool without one takes no input.
  out["input_schema"] = tool.parameters.is_null()
                            ? OrderedJson{{"type", "object"}, {"properties", OrderedJson::object()}}
                            : tool.parameters;
  return out;
}

// The tool_use "input": the stored arguments text as an object, keys in the
// model's order.
OrderedJson ToolInput(const std::string& arguments) {
  if (absl::StripAsciiWhitespace(arguments).empty()) return OrderedJson::object();
  absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(arguments);
  if (!parsed.ok() || !parsed->is_object()) return OrderedJson::object();
  return *std::move(parsed);
}

// Thinking and redacted-thinking blocks to replay, in stored order.
void AppendThinkingBlocks(const events::AssistantTurn& turn, OrderedJson* content) {
  size_t offset = 0;
  for (const events::OpaqueBlob& blob : turn.opaque) {
    if (blob.provider != kOpaqueProvider) continue;
    if (blob.kind == kRedactedThinkingKind) {
      OrderedJson block = OrderedJson::object();
      block["type"] = "redacted_thinking";
      block["data"] = blob.data;
      content->push_back(std::move(block));
    } else if (blob.kind == kThinkingSignatureKind) {
      // offset never passes the end: each block takes at most what is left.
      size_t remaining = turn.reasoning.size() - offset;
      size_t length = remaining;
      size_t stored = 0;
      if (absl::SimpleAtoi(blob.id, &stored) && stored <= remaining) length = stored;
      OrderedJson block = OrderedJson::object();
      block["type"] = "thinking";
      block["thinking"] = turn.reasoning.substr(offset, length);
      block["signature"] = blob.data;
      content->push_back(std::move(block));
      offset += length;
    }
  }
}

// Returns null when the turn has nothing to send.
OrderedJson AssistantMessage(const events::AssistantTurn& turn) {
  OrderedJson content = OrderedJson::array();
  AppendThinkingBlocks(turn, &content);
  if (!turn.text.empty()) {
    OrderedJson text = OrderedJson::object();
    text["type"] = "text";
    text["text"] = turn.text;
    content.push_back(std::move(text));
  }
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    OrderedJson use = OrderedJson::object();
    use["type"] = "tool_use";
    use["id"] = call.call_id;
    use["name"] = call.name;
    use["input"] = ToolInput(call.arguments);
    content.push_back(std::move(use));
  }
  if (content.empty()) return nullptr;
  OrderedJson message = OrderedJson::object();
  message["role"] = "assistant";
  message["content"] = std::move(content);
  return message;
}

OrderedJson ToolResultBlock(const events::ToolOutcome& outcome) {
  OrderedJson block = OrderedJson::object();
  block["type"] = "tool_result";
  block["tool_use_id"] = outcome.call_id;
  // "content" is optional; an empty string is left out.
  if (!outcome.content.empty()) block["content"] = outcome.content;
  if (outcome.is_error) block["is_error"] = true;
  return block;
}

// One user message from a run of consecutive user-side items.
OrderedJson UserMessage(const std::vector<const events::ContextItem*>& run) {
  OrderedJson content = OrderedJson::array();
  for (const events::ContextItem* item : run) {
    if (const auto* outcome = std::get_if<events::ToolOutcome>(item)) {
      content.push_back(ToolResultBlock(*outcome));
    }
  }
  for (const events::ContextItem* item : run) {
    const auto* user = std::get_if<events::UserText>(item);
    if (user == nullptr || user->text.empty()) continue;  // the API rejects empty text
    OrderedJson text = OrderedJson::object();
    text["type"] = "text";
    text["text"] = user->text;
    content.push_back(std::move(text));
  }
  if (content.empty()) return nullptr;
  OrderedJson message = OrderedJson::object();
  message["role"] = "user";
  message["content"] = std::move(content);
  return message;
}

}  // namespace

absl::StatusOr<CacheRetention> ParseCacheRetention(std::string_view text) {
  if (text == "5m") return CacheRetention::k5m;
  if (text == "1h") return CacheRetention::k1h;
  return absl::InvalidArgumentError(absl::StrCat("unknown cache retention \"", std::string(text),
                                                 "\" (expected \"5m\" or \"1h\")"));
}

namespace {

// Calls `emit` with each message of items [from, to), where `from` is 0 or
// just after an assistant turn (where a run of user-side items starts).
template <typename Emit>
void ForEachMessage(const std::vector<events::ContextItem>& items, size_t from, size_t to,
                    Emit emit) {
  std::vector<const events::ContextItem*> user_run;
  auto flush_user_run = [&emit, &user_run] {
    if (user_run.empty()) return;
    OrderedJson message = UserMessage(user_run);
    if (!message.is_null()) emit(std::move(message));
    user_run.clear();
  };
  for (size_t i = from; i < to; ++i) {
    if (const auto* turn = std::get_if<events::AssistantTurn>(&items[i])) {
      flush_user_run();
      OrderedJson message = AssistantMessage(*turn);
      if (!message.is_null()) emit(std::move(message));
    } else {
      user_run.push_back(&items[i]);
    }
  }
  flush_user_run();
}

void AppendMessages(const std::vector<events::ContextItem>& items, size_t from, size_t to,
                    std::string* out) {
  bool first = true;
  ForEachMessage(items, from, to, [out, &first](OrderedJson message) {
    if (!first) out->push_back(',');
    first = false;
    out->append(DumpJson(message));
  });
}

// Just after the last assistant turn: the items after it are one run of
// user-side items, which the next appended items may join, so only the
// messages before it are final.
size_t ClosedPoint(const std::vector<events::ContextItem>& items) {
  for (size_t i = items.size(); i > 0; --i) {
    if (std::holds_alternative<events::AssistantTurn>(items[i - 1])) return i;
  }
  return 0;
}

}  // namespace

OrderedJson BuildMessages(const std::vector<events::ContextItem>& items) {
  OrderedJson messages = OrderedJson::array();
  ForEachMessage(items, 0, items.size(),
                 [&messages](OrderedJson message) { messages.push_back(std::move(message)); });
  return messages;
}

http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
                              CacheRetention cache_retention) {
  OrderedJson body = OrderedJson::object();
  body["model"] = model.model_id;
  body["max_tokens"] = model.max_output_tokens.value_or(kDefaultMaxTokens);
  body["stream"] = true;
  OrderedJson cache_control = OrderedJson::object();
  cache_control["type"] = "ephemeral";
  if (cache_retention == CacheRetention::k1h) cache_control["ttl"] = "1h";
  body["cache_control"] = std::move(cache_control);
  if (!request.system_prompt.empty()) body["system"] = request.system_prompt;
  if (!request.tools.empty()) {
    OrderedJson tools = OrderedJson::array();
    for (const ToolDefinition& tool : request.tools) tools.push_back(ToolToJson(tool));
    body["tools"] = std::move(tools);
  }
  // "messages" is the last key: the body is the rest, then the messages,
  // whose closed part the session keeps between requests
  // (providers/serialized_history.h).
  std::string text = DumpJson(body);
  text.pop_back();  // the closing brace
  text += R"(,"messages":[)";
  return MergedHistoryBody(std::move(text), request.history, "anthropic-messages",
                           request.history_generation, request.messages,
                           ClosedPoint(request.messages), AppendMessages, "]}");
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             CacheRetention cache_retention) {
  return BuildRequest(request, model, cache_retention).Joined();
}

}  // namespace raw::providers::anthropic
