#include "daemon/providers/openai_chat/request_builder.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/json_writer.h"

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

void WriteAssistantMessage(JsonWriter& w, const events::AssistantTurn& turn,
                           bool send_reasoning_content) {
  w.Key("role").String("assistant");
  if (turn.text.empty() && !turn.tool_calls.empty()) {
    w.Key("content").Null();
  } else {
    w.Key("content").String(turn.text);
  }
  if (send_reasoning_content && !turn.tool_calls.empty()) {
    // Required even when empty by the models that take it back.
    w.Key("reasoning_content").String(turn.reasoning);
  }
  if (turn.tool_calls.empty()) return;
  w.Key("tool_calls").BeginArray();
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    w.BeginObject().Key("id").String(call.call_id).Key("type").String("function");
    // The exact string the model produced: replay is byte-identical.
    w.Key("function").BeginObject().Key("name").String(call.name);
    w.Key("arguments").String(call.arguments).EndObject();
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

void AppendMessage(const events::ContextItem& item, bool send_reasoning_content,
                   std::string* out) {
  JsonWriter w(*out);
  w.BeginObject();
  if (const auto* user = std::get_if<events::UserText>(&item)) {
    w.Key("role").String("user").Key("content");
    if (user->images.empty()) {
      w.String(user->text);
    } else {
      // Content parts: the text, then each image as a data URL.
      w.BeginArray();
      if (!user->text.empty()) {
        w.BeginObject().Key("type").String("text").Key("text").String(user->text).EndObject();
      }
      for (const events::ImagePart& image : user->images) {
        w.BeginObject().Key("type").String("image_url").Key("image_url").BeginObject();
        w.Key("url").String(absl::StrCat("data:", image.mime_type, ";base64,", image.base64));
        w.EndObject().EndObject();
      }
      w.EndArray();
    }
  } else if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    WriteAssistantMessage(w, *turn, send_reasoning_content);
  } else {
    const auto& outcome = std::get<events::ToolOutcome>(item);
    w.Key("role").String("tool").Key("tool_call_id").String(outcome.call_id);
    w.Key("content").String(outcome.is_error ? absl::StrCat("Error: ", outcome.content)
                                             : outcome.content);
  }
  w.EndObject();
}

http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
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
  std::shared_ptr<const std::string> items = history.Join(
      reasoning ? "openai-chat+reasoning_content" : "openai-chat", request.history_generation,
      request.messages, [reasoning](const events::ContextItem& item, std::string* out) {
        AppendMessage(item, reasoning, out);
      });
  if (!request.system_prompt.empty()) {
    OrderedJson system = OrderedJson::object();
    system["role"] = model.system_role.empty() ? std::string("system") : model.system_role;
    system["content"] = request.system_prompt;
    text += DumpJson(system);
    if (!items->empty()) text += ',';
  }
  return KeptHistoryBody(std::move(text), std::move(items), "]}");
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key) {
  return BuildRequest(request, model, prompt_cache_key).Joined();
}

}  // namespace raw::providers::openai_chat
