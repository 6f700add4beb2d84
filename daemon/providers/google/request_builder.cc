#include "daemon/providers/google/request_builder.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "daemon/providers/google/call_id.h"
#include "daemon/providers/google/schema_converter.h"
#include "daemon/providers/google/thought_signature.h"
#include "daemon/providers/opaque_state.h"

namespace raw::providers::google {
namespace {

OrderedJson TextPart(const std::string& text) { return OrderedJson{{"text", text}}; }

// The stored arguments text as the object Gemini wants (an empty object when
// the text is not one).
void WriteArgs(JsonWriter& w, const std::string& arguments) {
  absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(arguments);
  if (parsed.ok() && parsed->is_object()) {
    w.Raw(DumpJson(*parsed));
  } else {
    w.BeginObject().EndObject();
  }
}

// A text part, with its thought flag and signature when given.
void WriteTextPart(JsonWriter& w, std::string_view text, bool thought,
                   const std::string* signature) {
  w.BeginObject().Key("text").String(text);
  if (thought) w.Key("thought").Bool(true);
  if (signature != nullptr) w.Key("thoughtSignature").String(*signature);
  w.EndObject();
}

// Signatures go back only to the model that made them (opaque_state.h);
// without its signature the thought part is left out.
void WriteModelContent(JsonWriter& w, const events::AssistantTurn& turn,
                       std::string_view model_id) {
  std::vector<const std::string*> thought_signatures;
  std::vector<const std::string*> text_signatures;
  std::map<std::string_view, const std::string*> call_signatures;
  if (ReplaysOpaqueState(turn, model_id)) {
    for (const events::OpaqueBlob& blob : turn.opaque) {
      if (blob.provider != kOpaqueProvider || blob.kind != kThoughtSignatureKind) continue;
      if (blob.id == kThoughtAnchor) {
        thought_signatures.push_back(&blob.data);
      } else if (blob.id == kTextAnchor) {
        text_signatures.push_back(&blob.data);
      } else if (absl::StartsWith(blob.id, kCallAnchorPrefix)) {
        std::string_view call_id(blob.id);
        call_id.remove_prefix(sizeof(kCallAnchorPrefix) - 1);
        call_signatures.emplace(call_id, &blob.data);  // the first one wins
      }
    }
  }
  w.BeginObject().Key("role").String("model").Key("parts").BeginArray();
  for (size_t i = 0; i < thought_signatures.size(); ++i) {
    WriteTextPart(w, i == 0 ? std::string_view(turn.reasoning) : std::string_view(), true,
                  thought_signatures[i]);
  }
  size_t next_text_signature = 0;
  if (!turn.text.empty()) {
    WriteTextPart(w, turn.text, false,
                  text_signatures.empty() ? nullptr : text_signatures[next_text_signature++]);
  }
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    w.BeginObject().Key("functionCall").BeginObject();
    if (!call.call_id.empty() && !IsSyntheticCallId(call.call_id)) w.Key("id").String(call.call_id);
    w.Key("name").String(call.name).Key("args");
    WriteArgs(w, call.arguments);
    w.EndObject();
    auto signature = call_signatures.find(call.call_id);
    if (signature != call_signatures.end()) w.Key("thoughtSignature").String(*signature->second);
    w.EndObject();
  }
  for (; next_text_signature < text_signatures.size(); ++next_text_signature) {
    WriteTextPart(w, "", false, text_signatures[next_text_signature]);
  }
  // Gemini rejects a content without parts; an empty answer is empty text.
  if (thought_signatures.empty() && turn.text.empty() && turn.tool_calls.empty() &&
      text_signatures.empty()) {
    WriteTextPart(w, "", false, nullptr);
  }
  w.EndArray().EndObject();
}

void WriteFunctionResponsePart(JsonWriter& w, const events::ToolOutcome& outcome,
                               const events::ToolCallRequest* call) {
  w.BeginObject().Key("functionResponse").BeginObject();
  if (!outcome.call_id.empty() && !IsSyntheticCallId(outcome.call_id)) {
    w.Key("id").String(outcome.call_id);
  }
  w.Key("name").String(!outcome.name.empty() || call == nullptr ? outcome.name : call->name);
  w.Key("response")
      .BeginObject()
      .Key(outcome.is_error ? "error" : "output")
      .String(outcome.content);
  w.EndObject().EndObject().EndObject();
}

// One user content for a run of tool outcomes, in the order of the calls of
// `turn` (outcomes of calls it does not list keep their order, after those).
void WriteToolResultsContent(JsonWriter& w, const std::vector<const events::ToolOutcome*>& outcomes,
                             const events::AssistantTurn* turn) {
  std::vector<std::pair<size_t, size_t>> order;  // (call position, outcome position)
  order.reserve(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    size_t position = SIZE_MAX;
    if (turn != nullptr) {
      for (size_t c = 0; c < turn->tool_calls.size(); ++c) {
        if (turn->tool_calls[c].call_id == outcomes[i]->call_id) {
          position = c;
          break;
        }
      }
    }
    order.emplace_back(position, i);
  }
  std::stable_sort(order.begin(), order.end());
  w.BeginObject().Key("role").String("user").Key("parts").BeginArray();
  for (const auto& [position, index] : order) {
    const events::ToolCallRequest* call =
        position == SIZE_MAX ? nullptr : &turn->tool_calls[position];
    WriteFunctionResponsePart(w, *outcomes[index], call);
  }
  w.EndArray().EndObject();
}

}  // namespace

OrderedJson ToolToDeclaration(const ToolDefinition& tool) {
  OrderedJson declaration = OrderedJson::object();
  declaration["name"] = tool.name;
  declaration["description"] = tool.description;
  if (std::optional<OrderedJson> parameters = ToGeminiParameters(tool.parameters)) {
    declaration["parameters"] = *std::move(parameters);
  }
  return declaration;
}

namespace {

// Appends the contents of items [from, to), comma-separated, where `from`
// is 0 or just after an item that is not a tool outcome (where a run of them
// starts). A run's order comes from the last assistant turn before it,
// which may lie before `from`.
void AppendContents(std::string_view model_id, const std::vector<events::ContextItem>& items,
                    size_t from, size_t to, std::string* out) {
  JsonWriter w(*out);
  const events::AssistantTurn* last_turn = nullptr;
  if (from < to && std::holds_alternative<events::ToolOutcome>(items[from])) {
    for (size_t i = from; i > 0 && last_turn == nullptr; --i) {
      last_turn = std::get_if<events::AssistantTurn>(&items[i - 1]);
    }
  }
  std::vector<const events::ToolOutcome*> pending;
  auto flush = [&] {
    if (pending.empty()) return;
    WriteToolResultsContent(w, pending, last_turn);
    pending.clear();
  };
  for (size_t i = from; i < to; ++i) {
    const events::ContextItem& item = items[i];
    if (const auto* outcome = std::get_if<events::ToolOutcome>(&item)) {
      pending.push_back(outcome);
      continue;
    }
    flush();
    if (const auto* user = std::get_if<events::UserText>(&item)) {
      w.BeginObject().Key("role").String("user").Key("parts").BeginArray();
      if (!user->text.empty() || user->images.empty()) {
        WriteTextPart(w, user->text, false, nullptr);
      }
      for (const events::ImagePart& image : user->images) {
        w.BeginObject().Key("inlineData").BeginObject();
        w.Key("mimeType").String(image.mime_type).Key("data").String(image.base64);
        w.EndObject().EndObject();
      }
      w.EndArray().EndObject();
    } else if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
      WriteModelContent(w, *turn, model_id);
      last_turn = turn;
    }
  }
  flush();
}

// Just after the last item that is not a tool outcome: the tool outcomes
// after it are one run, which the next appended outcomes join, so only the
// contents before it are final.
size_t ClosedPoint(const std::vector<events::ContextItem>& items) {
  for (size_t i = items.size(); i > 0; --i) {
    if (!std::holds_alternative<events::ToolOutcome>(items[i - 1])) return i;
  }
  return 0;
}

}  // namespace

OrderedJson HistoryToContents(const std::vector<events::ContextItem>& messages,
                              std::string_view model_id) {
  std::string text = "[";
  AppendContents(model_id, messages, 0, messages.size(), &text);
  text.push_back(']');
  // The writer's own output: it parses. No depth limit here, since tool
  // arguments may already nest as deep as ParseOrderedJson allows.
  return OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
}

http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model) {
  OrderedJson body = OrderedJson::object();
  if (!request.system_prompt.empty()) {
    body["systemInstruction"] =
        OrderedJson{{"parts", OrderedJson::array({TextPart(request.system_prompt)})}};
  }
  if (!request.tools.empty()) {
    OrderedJson declarations = OrderedJson::array();
    for (const ToolDefinition& tool : request.tools) declarations.push_back(ToolToDeclaration(tool));
    body["tools"] = OrderedJson::array({OrderedJson{{"functionDeclarations", declarations}}});
  }
  OrderedJson generation = OrderedJson::object();
  if (model.max_output_tokens.has_value()) generation["maxOutputTokens"] = *model.max_output_tokens;
  // Models without thinking refuse any thinkingConfig.
  if (model.include_thoughts) {
    generation["thinkingConfig"] = request.summary
                                       ? OrderedJson{{"thinkingBudget", kSummaryThinkingBudget}}
                                       : OrderedJson{{"includeThoughts", true}};
  }
  if (!generation.empty()) body["generationConfig"] = std::move(generation);
  // "contents" is the last key: the body is the rest, then the contents,
  // whose closed part the session keeps between requests
  // (providers/serialized_history.h).
  std::string text = DumpJson(body);
  text.pop_back();  // the closing brace
  text += body.empty() ? R"("contents":[)" : R"(,"contents":[)";
  // The model is part of the format: another model's signatures stay behind.
  const std::string_view model_id = model.model_id;
  return MergedHistoryBody(
      std::move(text), request.history, absl::StrCat("google-generate-content ", model.model_id),
      request.history_generation, request.messages, ClosedPoint(request.messages),
      [model_id](const std::vector<events::ContextItem>& items, size_t from, size_t to,
                 std::string* out) { AppendContents(model_id, items, from, to, out); },
      "]}");
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model) {
  return BuildRequest(request, model).Joined();
}

}  // namespace raw::providers::google
