#include "daemon/providers/openai_responses/request_builder.h"

#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"

namespace raw::providers::openai_responses {
namespace {

OrderedJson ToolToJson(const ToolDefinition& tool) {
  OrderedJson out = OrderedJson::object();
  out["type"] = "function";
  out["name"] = tool.name;
  out["description"] = tool.description;
  // A missing schema would declare no parameters; an explicit empty object
  // schema says the same.
  out["parameters"] = tool.parameters.is_null()
                          ? OrderedJson{{"type", "object"}, {"properties", OrderedJson::object()}}
                          : tool.parameters;
  out["strict"] = false;
  return out;
}

OrderedJson Message(const char* role, const char* part_type, const std::string& text) {
  OrderedJson part = OrderedJson::object();
  part["type"] = part_type;
  part["text"] = text;
  OrderedJson message = OrderedJson::object();
  message["type"] = "message";
  message["role"] = role;
  message["content"] = OrderedJson::array({std::move(part)});
  return message;
}

bool IsReplayableReasoning(const events::OpaqueBlob& blob) {
  return blob.provider == kOpaqueProvider && blob.kind == kReasoningItemKind && !blob.data.empty();
}

OrderedJson AssistantItems(const events::AssistantTurn& turn) {
  OrderedJson items = OrderedJson::array();
  if (turn.text.empty() && turn.tool_calls.empty()) return items;
  for (const events::OpaqueBlob& blob : turn.opaque) {
    if (!IsReplayableReasoning(blob)) continue;
    // No "id": with store:false the server keeps no items, and an echoed
    // item id can be taken for a reference to a stored item. The encrypted
    // content is the state; the summary was display text.
    OrderedJson reasoning = OrderedJson::object();
    reasoning["type"] = "reasoning";
    reasoning["summary"] = OrderedJson::array();
    reasoning["encrypted_content"] = blob.data;
    items.push_back(std::move(reasoning));
  }
  if (!turn.text.empty()) items.push_back(Message("assistant", "output_text", turn.text));
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    OrderedJson item = OrderedJson::object();
    item["type"] = "function_call";
    item["call_id"] = call.call_id;
    item["name"] = call.name;
    // The exact string the model produced: replay is byte-identical.
    item["arguments"] = call.arguments;
    items.push_back(std::move(item));
  }
  return items;
}

OrderedJson ToolOutputItem(const events::ToolOutcome& outcome) {
  OrderedJson item = OrderedJson::object();
  item["type"] = "function_call_output";
  item["call_id"] = outcome.call_id;
  item["output"] = outcome.is_error ? absl::StrCat("Error: ", outcome.content) : outcome.content;
  return item;
}

}  // namespace

OrderedJson ContextItemToInputItems(const events::ContextItem& item) {
  return std::visit(
      [](const auto& value) -> OrderedJson {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, events::UserText>) {
          return OrderedJson::array({Message("user", "input_text", value.text)});
        } else if constexpr (std::is_same_v<T, events::AssistantTurn>) {
          return AssistantItems(value);
        } else {
          return OrderedJson::array({ToolOutputItem(value)});
        }
      },
      item);
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key) {
  OrderedJson body = OrderedJson::object();
  body["model"] = model.model_id;
  body["stream"] = true;
  body["store"] = false;
  body["include"] = OrderedJson::array({"reasoning.encrypted_content"});
  if (!request.system_prompt.empty()) body["instructions"] = request.system_prompt;
  if (model.reasoning_effort.has_value()) {
    // Summaries are what a reasoning model streams as reasoning text.
    OrderedJson reasoning = OrderedJson::object();
    reasoning["effort"] = *model.reasoning_effort;
    reasoning["summary"] = "auto";
    body["reasoning"] = std::move(reasoning);
  }
  if (model.max_output_tokens.has_value()) body["max_output_tokens"] = *model.max_output_tokens;
  if (prompt_cache_key.has_value() && !prompt_cache_key->empty()) {
    body["prompt_cache_key"] = *prompt_cache_key;
  }
  if (!request.tools.empty()) {
    OrderedJson tools = OrderedJson::array();
    for (const ToolDefinition& tool : request.tools) tools.push_back(ToolToJson(tool));
    body["tools"] = std::move(tools);
  }
  // "input" is the last key: the body is the rest, then the input items'
  // text, whose history part the session keeps between requests (each item
  // maps to its entries alone, whatever its neighbours).
  std::string text = DumpJson(body);
  text.pop_back();  // the closing brace
  text += R"(,"input":[)";
  SerializedHistory uncached;
  SerializedHistory& history = request.history != nullptr ? *request.history : uncached;
  text += history.Join("openai-responses", request.history_generation, request.messages,
                       [](const events::ContextItem& item, std::string* out) {
                         bool first = true;
                         for (const OrderedJson& entry : ContextItemToInputItems(item)) {
                           if (!first) out->push_back(',');
                           first = false;
                           out->append(DumpJson(entry));
                         }
                       });
  text += "]}";
  return text;
}

}  // namespace raw::providers::openai_responses
