#include "daemon/providers/openai_chat/request_builder.h"

#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"

namespace raw::providers::openai_chat {
namespace {

OrderedJson ToolToJson(const ToolDefinition& tool) {
  OrderedJson function = OrderedJson::object();
  function["name"] = tool.name;
  function["description"] = tool.description;
  // A missing schema would declare no parameters; an explicit empty object
  // schema says the same and is accepted by every compatible server.
  function["parameters"] = tool.parameters.is_null()
                               ? OrderedJson{{"type", "object"}, {"properties", OrderedJson::object()}}
                               : tool.parameters;
  OrderedJson out = OrderedJson::object();
  out["type"] = "function";
  out["function"] = std::move(function);
  return out;
}

OrderedJson UserMessage(const events::UserText& user) {
  OrderedJson message = OrderedJson::object();
  message["role"] = "user";
  message["content"] = user.text;
  return message;
}

OrderedJson AssistantMessage(const events::AssistantTurn& turn, bool send_reasoning_content) {
  OrderedJson message = OrderedJson::object();
  message["role"] = "assistant";
  if (turn.text.empty() && !turn.tool_calls.empty()) {
    message["content"] = nullptr;
  } else {
    message["content"] = turn.text;
  }
  if (send_reasoning_content && !turn.tool_calls.empty()) {
    // Required even when empty by the models that take it back.
    message["reasoning_content"] = turn.reasoning;
  }
  if (!turn.tool_calls.empty()) {
    OrderedJson calls = OrderedJson::array();
    for (const events::ToolCallRequest& call : turn.tool_calls) {
      OrderedJson function = OrderedJson::object();
      function["name"] = call.name;
      // The exact string the model produced: replay is byte-identical.
      function["arguments"] = call.arguments;
      OrderedJson entry = OrderedJson::object();
      entry["id"] = call.call_id;
      entry["type"] = "function";
      entry["function"] = std::move(function);
      calls.push_back(std::move(entry));
    }
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

OrderedJson ToolMessage(const events::ToolOutcome& outcome) {
  OrderedJson message = OrderedJson::object();
  message["role"] = "tool";
  message["tool_call_id"] = outcome.call_id;
  message["content"] = outcome.is_error ? absl::StrCat("Error: ", outcome.content) : outcome.content;
  return message;
}

}  // namespace

OrderedJson ContextItemToMessage(const events::ContextItem& item, bool send_reasoning_content) {
  return std::visit(
      [send_reasoning_content](const auto& value) -> OrderedJson {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, events::UserText>) {
          return UserMessage(value);
        } else if constexpr (std::is_same_v<T, events::AssistantTurn>) {
          return AssistantMessage(value, send_reasoning_content);
        } else {
          return ToolMessage(value);
        }
      },
      item);
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key) {
  OrderedJson body = OrderedJson::object();
  body["model"] = model.model_id;
  body["stream"] = true;
  body["stream_options"] = OrderedJson{{"include_usage", true}};
  if (model.max_output_tokens.has_value()) {
    body[model.max_tokens_field.empty() ? std::string("max_tokens") : model.max_tokens_field] =
        *model.max_output_tokens;
  }
  if (prompt_cache_key.has_value() && !prompt_cache_key->empty()) {
    body["prompt_cache_key"] = *prompt_cache_key;
  }
  if (!request.tools.empty()) {
    OrderedJson tools = OrderedJson::array();
    for (const ToolDefinition& tool : request.tools) tools.push_back(ToolToJson(tool));
    body["tools"] = std::move(tools);
  }
  // "messages" is the last key: the body is the rest, then the messages'
  // text, whose history part the session keeps between requests (every
  // item maps to one message of its own, whatever its neighbours).
  std::string text = DumpJson(body);
  text.pop_back();  // the closing brace
  text += R"(,"messages":[)";
  const bool reasoning = model.send_reasoning_content;
  SerializedHistory uncached;
  SerializedHistory& history = request.history != nullptr ? *request.history : uncached;
  const std::string& items =
      history.Join(reasoning ? "openai-chat+reasoning_content" : "openai-chat",
                   request.history_generation, request.messages,
                   [reasoning](const events::ContextItem& item, std::string* out) {
                     out->append(DumpJson(ContextItemToMessage(item, reasoning)));
                   });
  if (!request.system_prompt.empty()) {
    OrderedJson system = OrderedJson::object();
    system["role"] = model.system_role.empty() ? std::string("system") : model.system_role;
    system["content"] = request.system_prompt;
    text += DumpJson(system);
    if (!items.empty()) text += ',';
  }
  text += items;
  text += "]}";
  return text;
}

}  // namespace raw::providers::openai_chat
