#include "daemon/providers/anthropic/request_builder.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/opaque_state.h"

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
// model's order (an empty object when the text is not one).
void WriteToolInput(JsonWriter& w, const std::string& arguments) {
  if (!absl::StripAsciiWhitespace(arguments).empty()) {
    absl::StatusOr<OrderedJson> parsed = ParseOrderedJson(arguments);
    if (parsed.ok() && parsed->is_object()) {
      w.Raw(DumpJson(*parsed));
      return;
    }
  }
  w.BeginObject().EndObject();
}

bool IsThinkingBlob(const events::OpaqueBlob& blob) {
  return blob.provider == kOpaqueProvider &&
         (blob.kind == kRedactedThinkingKind || blob.kind == kThinkingSignatureKind);
}

// Thinking and redacted-thinking blocks to replay, in stored order (called
// only for the model that made them).
void WriteThinkingBlocks(JsonWriter& w, const events::AssistantTurn& turn) {
  size_t offset = 0;
  for (const events::OpaqueBlob& blob : turn.opaque) {
    if (!IsThinkingBlob(blob)) continue;
    if (blob.kind == kRedactedThinkingKind) {
      w.BeginObject().Key("type").String("redacted_thinking").Key("data").String(blob.data);
      w.EndObject();
    } else {
      // offset never passes the end: each block takes at most what is left.
      size_t remaining = turn.reasoning.size() - offset;
      size_t length = remaining;
      size_t stored = 0;
      if (absl::SimpleAtoi(blob.id, &stored) && stored <= remaining) length = stored;
      w.BeginObject().Key("type").String("thinking");
      w.Key("thinking").String(std::string_view(turn.reasoning).substr(offset, length));
      w.Key("signature").String(blob.data).EndObject();
      offset += length;
    }
  }
}

// The API refuses a text block of only whitespace ("text content blocks
// must contain non-whitespace text") as it does an empty one; a model may
// answer "\n\n" before its tool calls, and the history keeps that text as it
// came, so it is left out of every request alike.
bool Blank(std::string_view text) {
  return absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size())).empty();
}

// Writes nothing when the turn has nothing to send. Thinking blocks go back
// only to the model that signed them (opaque_state.h).
void WriteAssistantMessage(JsonWriter& w, const events::AssistantTurn& turn,
                           std::string_view model_id) {
  const bool thinking = ReplaysOpaqueState(turn, model_id) &&
                        std::any_of(turn.opaque.begin(), turn.opaque.end(), IsThinkingBlob);
  if (Blank(turn.text) && turn.tool_calls.empty() && !thinking) return;
  w.BeginObject().Key("role").String("assistant").Key("content").BeginArray();
  if (thinking) WriteThinkingBlocks(w, turn);
  if (!Blank(turn.text)) {
    w.BeginObject().Key("type").String("text").Key("text").String(turn.text).EndObject();
  }
  for (const events::ToolCallRequest& call : turn.tool_calls) {
    w.BeginObject().Key("type").String("tool_use").Key("id").String(call.call_id);
    w.Key("name").String(call.name).Key("input");
    WriteToolInput(w, call.arguments);
    w.EndObject();
  }
  w.EndArray().EndObject();
}

// One user message from a run of consecutive user-side items: the tool
// results first, then the texts, each followed by its images. Writes nothing when the run has
// nothing to send (the API rejects empty and blank text).
void WriteUserMessage(JsonWriter& w, const std::vector<const events::ContextItem*>& run) {
  auto sends = [](const events::ContextItem* item) {
    const auto* user = std::get_if<events::UserText>(item);
    return user == nullptr || !Blank(user->text) || !user->images.empty();
  };
  if (std::none_of(run.begin(), run.end(), sends)) return;
  w.BeginObject().Key("role").String("user").Key("content").BeginArray();
  for (const events::ContextItem* item : run) {
    const auto* outcome = std::get_if<events::ToolOutcome>(item);
    if (outcome == nullptr) continue;
    w.BeginObject().Key("type").String("tool_result").Key("tool_use_id").String(outcome->call_id);
    // "content" is optional; an empty string is left out.
    if (!outcome->content.empty()) w.Key("content").String(outcome->content);
    if (outcome->is_error) w.Key("is_error").Bool(true);
    w.EndObject();
  }
  for (const events::ContextItem* item : run) {
    const auto* user = std::get_if<events::UserText>(item);
    if (user == nullptr) continue;
    if (!Blank(user->text)) {
      w.BeginObject().Key("type").String("text").Key("text").String(user->text).EndObject();
    }
    for (const events::ImagePart& image : user->images) {
      w.BeginObject().Key("type").String("image").Key("source").BeginObject();
      w.Key("type").String("base64").Key("media_type").String(image.mime_type);
      w.Key("data").String(image.base64).EndObject().EndObject();
    }
  }
  w.EndArray().EndObject();
}

}  // namespace

absl::StatusOr<CacheRetention> ParseCacheRetention(std::string_view text) {
  if (text == "5m") return CacheRetention::k5m;
  if (text == "1h") return CacheRetention::k1h;
  return absl::InvalidArgumentError(absl::StrCat("unknown cache retention \"", std::string(text),
                                                 "\" (expected \"5m\" or \"1h\")"));
}

namespace {

// Appends the messages of items [from, to), comma-separated, where `from` is
// 0 or just after an assistant turn (where a run of user-side items starts).
void AppendMessages(std::string_view model_id, const std::vector<events::ContextItem>& items,
                    size_t from, size_t to, std::string* out) {
  JsonWriter w(*out);
  std::vector<const events::ContextItem*> user_run;
  for (size_t i = from; i < to; ++i) {
    if (const auto* turn = std::get_if<events::AssistantTurn>(&items[i])) {
      WriteUserMessage(w, user_run);
      user_run.clear();
      WriteAssistantMessage(w, *turn, model_id);
    } else {
      user_run.push_back(&items[i]);
    }
  }
  WriteUserMessage(w, user_run);
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

OrderedJson BuildMessages(const std::vector<events::ContextItem>& items,
                          std::string_view model_id) {
  std::string text = "[";
  AppendMessages(model_id, items, 0, items.size(), &text);
  text.push_back(']');
  // The writer's own output: it parses. No depth limit here, since tool
  // arguments may already nest as deep as ParseOrderedJson allows.
  return OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
}

http::PiecedBody BuildRequest(const ModelRequest& request, const config::ModelConfig& model,
                              CacheRetention cache_retention) {
  OrderedJson body = OrderedJson::object();
  body["model"] = model.model_id;
  body["max_tokens"] = model.max_output_tokens.value_or(kDefaultMaxTokens);
  body["stream"] = true;
  if (!request.summary) {
    OrderedJson cache_control = OrderedJson::object();
    cache_control["type"] = "ephemeral";
    if (cache_retention == CacheRetention::k1h) cache_control["ttl"] = "1h";
    body["cache_control"] = std::move(cache_control);
  }
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
  // The model is part of the format: another model's thinking stays behind.
  const std::string_view model_id = model.model_id;
  return MergedHistoryBody(
      std::move(text), request.history, absl::StrCat("anthropic-messages ", model.model_id),
      request.history_generation, request.messages, ClosedPoint(request.messages),
      [model_id](const std::vector<events::ContextItem>& items, size_t from, size_t to,
                 std::string* out) { AppendMessages(model_id, items, from, to, out); },
      "]}");
}

std::string BuildRequestBody(const ModelRequest& request, const config::ModelConfig& model,
                             CacheRetention cache_retention) {
  return BuildRequest(request, model, cache_retention).Joined();
}

}  // namespace raw::providers::anthropic
