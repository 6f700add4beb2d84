#include "daemon/providers/openai_responses/request_builder.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "daemon/providers/opaque_state.h"

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

void WriteMessage(JsonWriter& w, const char* role, const char* part_type,
                  const std::string& text) {
  w.BeginObject().Key("type").String("message").Key("role").String(role);
  w.Key("content").BeginArray();
  w.BeginObject().Key("type").String(part_type).Key("text").String(text).EndObject();
  w.EndArray().EndObject();
}

// The text, then each image as an input_image with a data URL.
void WriteUserMessage(JsonWriter& w, const events::UserText& user) {
  if (user.images.empty()) return WriteMessage(w, "user", "input_text", user.text);
  w.BeginObject().Key("type").String("message").Key("role").String("user");
  w.Key("content").BeginArray();
  if (!user.text.empty()) {
    w.BeginObject().Key("type").String("input_text").Key("text").String(user.text).EndObject();
  }
  for (const events::ImagePart& image : user.images) {
    w.BeginObject().Key("type").String("input_image");
    w.Key("image_url").String(absl::StrCat("data:", image.mime_type, ";base64,", image.base64));
    w.EndObject();
  }
  w.EndArray().EndObject();
}

bool IsReplayableReasoning(const events::OpaqueBlob& blob) {
  return blob.provider == kOpaqueProvider && blob.kind == kReasoningItemKind && !blob.data.empty();
}

// Encrypted reasoning goes back only to the model that made it
// (opaque_state.h).
void WriteAssistantItems(JsonWriter& w, const events::AssistantTurn& turn,
                         std::string_view model_id) {
  if (turn.text.empty() && turn.tool_calls.empty()) return;
  const bool replay = ReplaysOpaqueState(turn, model_id);
  for (const events::OpaqueBlob& blob : turn.opaque) {
    if (!replay || !IsReplayableReasoning(blob)) continue;
    // No "id": with store:false the server keeps no items, and an echoed
    // item id can be taken for a reference to a stored item. The encrypted
    // content is the state; the summary was display text.
    w.BeginObject().Key("type").String("reasoning").Key("summary").BeginArray().EndArray();
    w.Key("encrypted_content").String(blob.data).EndObject();
  }
  if (!turn.text.empty()) WriteMessage(w, "assistant", "output_text", turn.text);
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    w.BeginObject().Key("type").String("function_call").Key("call_id").String(call.call_id);
    // The exact string the model produced: replay is byte-identical.
    w.Key("name").String(call.name).Key("arguments").String(call.arguments).EndObject();
  }
}

}  // namespace

void AppendInputItems(const events::ContextItem& item, std::string* out,
                      std::string_view model_id) {
  JsonWriter w(*out);
  if (const auto* user = std::get_if<events::UserText>(&item)) {
    WriteUserMessage(w, *user);
  } else if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    WriteAssistantItems(w, *turn, model_id);
  } else {
    const auto& outcome = std::get<events::ToolOutcome>(item);
    w.BeginObject().Key("type").String("function_call_output").Key("call_id").String(outcome.call_id);
    w.Key("output").String(outcome.is_error ? absl::StrCat("Error: ", outcome.content)
                                            : outcome.content);
    w.EndObject();
  }
}

http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
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
  // The model is part of the format: another model's reasoning stays behind.
  const std::string_view model_id = model.model_id;
  std::shared_ptr<const std::string> items =
      history.Join(absl::StrCat("openai-responses ", model.model_id), request.history_generation,
                   request.messages, [model_id](const events::ContextItem& item, std::string* out) {
                     AppendInputItems(item, out, model_id);
                   });
  return KeptHistoryBody(std::move(text), std::move(items), "]}");
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             const std::optional<std::string>& prompt_cache_key) {
  return BuildRequest(request, model, prompt_cache_key).Joined();
}

}  // namespace raw::providers::openai_responses
