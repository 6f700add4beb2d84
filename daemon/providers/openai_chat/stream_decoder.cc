#include "daemon/providers/openai_chat/stream_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/error_body.h"
#include "daemon/providers/wire_fields.h"

namespace raw::providers::openai_chat {
namespace {

// Message content: a string, or an array of {"type":"text","text":...}.
std::string ContentText(const Json* content) {
  if (content == nullptr) return "";
  if (content->is_string()) return content->get<std::string>();
  std::string text;
  if (content->is_array()) {
    for (const Json& part : *content) text += StringOf(FindField(part, "text"));
  }
  return text;
}

FinishReason MapFinish(std::string_view raw, size_t calls, size_t complete_calls, bool refusal) {
  if (raw == "length") return FinishReason::kLength;
  if (raw == "content_filter") return FinishReason::kContentFilter;
  if (raw == "stop" || raw == "tool_calls" || raw == "function_call" || raw.empty()) {
    if (complete_calls > 0) return FinishReason::kToolCalls;
    if (calls > 0) return FinishReason::kMalformedToolCall;
    if (refusal) return FinishReason::kContentFilter;
    return FinishReason::kStop;
  }
  return FinishReason::kUnknown;
}

bool IsJsonObject(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  return parsed.ok() && parsed->is_object();
}

}  // namespace

events::Usage NormalizeChatUsage(const Json& usage) {
  events::Usage out;
  if (!usage.is_object()) return out;
  out.input_tokens = CountField(usage, "prompt_tokens");
  out.output_tokens = CountField(usage, "completion_tokens");
  const Json* prompt_details = FindField(usage, "prompt_tokens_details");
  const Json* completion_details = FindField(usage, "completion_tokens_details");
  // DeepSeek's own hit count is the billing figure; cached_tokens mirrors it.
  out.cache_read_tokens = CountField(usage, "prompt_cache_hit_tokens");
  if (!out.cache_read_tokens && prompt_details != nullptr) {
    out.cache_read_tokens = CountField(*prompt_details, "cached_tokens");
  }
  if (prompt_details != nullptr) {
    out.cache_write_tokens = CountField(*prompt_details, "cache_write_tokens");
  }
  if (!out.cache_write_tokens) out.cache_write_tokens = CountField(usage, "cache_write_tokens");
  if (completion_details != nullptr) {
    out.reasoning_tokens = CountField(*completion_details, "reasoning_tokens");
  }
  return out;
}

void StreamDecoder::Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done()) return;
  absl::string_view stripped = absl::StripAsciiWhitespace(frame.data);
  std::string_view data(stripped.data(), stripped.size());
  if (frame.event == "error") {
    absl::StatusOr<Json> parsed = ParseJson(data);
    EndWithError(
        error_body::ClassifyStreamError(parsed.ok() ? *parsed : Json(std::string(data))), out);
    return;
  }
  if (data.empty()) return;
  if (data == "[DONE]") {
    CompleteStream(out);
    return;
  }
  absl::StatusOr<Json> chunk = ParseJson(data);
  if (!chunk.ok()) {
    ErrorEvent error;
    error.kind = ErrorKind::kServer;
    error.retryable = true;
    error.message = absl::StrCat("malformed chunk in the stream: ", chunk.status().message());
    EndWithError(std::move(error), out);
    return;
  }
  if (!chunk->is_object()) return;
  if (const Json* error = FindField(*chunk, "error")) {
    ErrorEvent event = error_body::ClassifyStreamError(*error);
    if (event.request_id.empty()) event.request_id = StringOf(FindField(*chunk, "request_id"));
    EndWithError(std::move(event), out);
    return;
  }
  DecodeChunk(*chunk, out);
}

void StreamDecoder::DecodeChunk(const Json& chunk, std::vector<ProviderEvent>* out) {
  NoteIdentity(StringOf(FindField(chunk, "id")), StringOf(FindField(chunk, "model")));
  const Json* choices = FindField(chunk, "choices");
  const Json* usage = FindField(chunk, "usage");
  bool has_choices = choices != nullptr && choices->is_array() && !choices->empty();
  // Chunks with neither choices nor usage (content-filter preambles) are
  // skipped; any other chunk opens the stream.
  if (!has_choices && usage == nullptr) return;
  EnsureStarted(out);
  if (usage != nullptr && usage->is_object()) usage_ = NormalizeChatUsage(*usage);
  if (!has_choices) return;
  for (const Json& choice : *choices) {
    std::optional<int64_t> index = CountField(choice, "index");
    if (index.has_value() && *index != 0) continue;  // n is always 1
    if (const Json* delta = FindField(choice, "delta")) DecodeDelta(*delta, out);
    if (done()) return;  // too many tool calls
    std::string_view reason = StringOf(FindField(choice, "finish_reason"));
    if (reason.empty()) continue;
    if (reason == "insufficient_system_resource") {
      ErrorEvent error;
      error.kind = ErrorKind::kServer;
      error.retryable = true;
      error.provider_code = std::string(reason);
      error.message = "the server interrupted the generation (insufficient_system_resource)";
      EndWithError(std::move(error), out);
      return;
    }
    finish_reason_ = std::string(reason);
  }
}

void StreamDecoder::DecodeDelta(const Json& delta, std::vector<ProviderEvent>* out) {
  if (!delta.is_object()) return;
  std::string_view reasoning = StringOf(FindField(delta, "reasoning_content"));
  if (reasoning.empty()) reasoning = StringOf(FindField(delta, "reasoning"));
  if (!reasoning.empty()) EmitReasoning(reasoning, out);
  std::string content = ContentText(FindField(delta, "content"));
  if (!content.empty()) EmitText(content, out);
  std::string_view refusal = StringOf(FindField(delta, "refusal"));
  if (!refusal.empty()) {
    refusal_seen_ = true;
    EmitText(refusal, out);
  }
  const Json* tool_calls = FindField(delta, "tool_calls");
  if (tool_calls != nullptr && tool_calls->is_array()) {
    for (const Json& fragment : *tool_calls) {
      DecodeToolCall(fragment, out);
      if (done()) return;
    }
  }
}

void StreamDecoder::EmitText(std::string_view text, std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  if (part_kind_ != PartKind::kText) {
    EndReasoningPart(out);
    ++part_index_;
    part_kind_ = PartKind::kText;
  }
  MarkOutput();
  out->push_back(TextDeltaEvent{part_index_, std::string(text)});
}

void StreamDecoder::EmitReasoning(std::string_view text, std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  if (part_kind_ != PartKind::kReasoning) {
    ++part_index_;
    part_kind_ = PartKind::kReasoning;
  }
  MarkOutput();
  out->push_back(ReasoningDeltaEvent{part_index_, std::string(text)});
}

void StreamDecoder::EndReasoningPart(std::vector<ProviderEvent>* out) {
  if (part_kind_ != PartKind::kReasoning) return;
  ReasoningEndEvent end;
  end.part_index = part_index_;
  out->push_back(std::move(end));
  part_kind_ = PartKind::kNone;
}

StreamDecoder::CallSlot* StreamDecoder::SlotFor(const Json& fragment,
                                                std::vector<ProviderEvent>* out) {
  std::optional<int64_t> index = CountField(fragment, "index");
  std::string_view id = StringOf(FindField(fragment, "id"));
  auto make_slot = [this, out](std::optional<int64_t> wire_index) -> CallSlot* {
    if (!AdmitCall(out)) return nullptr;
    CallSlot slot;
    slot.call_index = static_cast<int>(calls_.size());
    calls_.push_back(std::move(slot));
    if (wire_index) by_index_[*wire_index] = calls_.size() - 1;
    Hold(kToolCallOverheadBytes);  // until StartCall lets it out
    return &calls_.back();
  };
  if (index.has_value()) {
    auto it = by_index_.find(*index);
    if (it == by_index_.end()) return make_slot(index);
    CallSlot& slot = calls_[it->second];
    // Some servers number every call 0; a new id under a used index is a
    // new call.
    if (!id.empty() && !slot.id.empty() && slot.id != id) return make_slot(index);
    return &slot;
  }
  if (!id.empty()) {
    auto it = by_id_.find(std::string(id));
    if (it != by_id_.end()) return &calls_[it->second];
    return make_slot(std::nullopt);
  }
  if (!calls_.empty()) return &calls_.back();
  return make_slot(std::nullopt);
}

void StreamDecoder::DecodeToolCall(const Json& fragment, std::vector<ProviderEvent>* out) {
  if (!fragment.is_object()) return;
  EndReasoningPart(out);
  CallSlot* found = SlotFor(fragment, out);
  if (found == nullptr) return;  // too many tool calls
  CallSlot& slot = *found;
  std::string_view id = StringOf(FindField(fragment, "id"));
  if (slot.id.empty() && !id.empty()) {
    slot.id = std::string(id);
    by_id_[slot.id] = static_cast<size_t>(slot.call_index);
    if (!slot.started) Hold(slot.id.size());
  }
  std::string piece;
  if (const Json* function = FindField(fragment, "function")) {
    std::string_view name = StringOf(FindField(*function, "name"));
    if (slot.name.empty() && !name.empty()) slot.name = std::string(name);
    if (const Json* args = FindField(*function, "arguments")) {
      piece = args->is_string() ? args->get<std::string>() : DumpJson(*args);
    }
  }
  bool was_started = slot.started;
  slot.arguments += piece;
  if (!was_started) Hold(piece.size());  // until StartCall lets it out
  if (!slot.started && !slot.name.empty()) {
    StartCall(slot, out);  // also emits the arguments buffered so far
  } else if (was_started && !piece.empty()) {
    out->push_back(ToolCallDeltaEvent{slot.call_index, std::move(piece)});
  }
}

void StreamDecoder::StartCall(CallSlot& slot, std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  // The event carries what was held from here on.
  Release(kToolCallOverheadBytes + slot.id.size() + slot.arguments.size());
  if (slot.id.empty()) {
    slot.id = response_id().empty() ? absl::StrCat("call_", slot.call_index)
                                    : absl::StrCat("call_", response_id(), "_", slot.call_index);
  }
  slot.started = true;
  MarkOutput();
  out->push_back(ToolCallStartEvent{slot.call_index, slot.id, slot.name});
  if (!slot.arguments.empty()) {
    out->push_back(ToolCallDeltaEvent{slot.call_index, slot.arguments});
  }
}

void StreamDecoder::CompleteStream(std::vector<ProviderEvent>* out) {
  if (done()) return;
  EnsureStarted(out);
  EndReasoningPart(out);
  std::string raw = finish_reason_.value_or("");
  bool may_complete = raw.empty() || raw == "stop" || raw == "tool_calls" || raw == "function_call";
  size_t complete_calls = 0;
  for (CallSlot& slot : calls_) {
    if (!slot.started) StartCall(slot, out);
    if (slot.arguments.empty()) {
      slot.arguments = "{}";
      out->push_back(ToolCallDeltaEvent{slot.call_index, slot.arguments});
    }
    ToolCallEndEvent end;
    end.call_index = slot.call_index;
    end.call_id = slot.id;
    end.name = slot.name;
    end.arguments = slot.arguments;
    end.complete = may_complete && !slot.name.empty() && IsJsonObject(slot.arguments);
    if (end.complete) ++complete_calls;
    out->push_back(std::move(end));
  }
  if (usage_) out->push_back(UsageEvent{*usage_});
  FinishEvent finish;
  finish.reason = MapFinish(raw, calls_.size(), complete_calls, refusal_seen_);
  finish.raw_reason = std::move(raw);
  out->push_back(std::move(finish));
  MarkDone();
}

void StreamDecoder::Finish(std::vector<ProviderEvent>* out) {
  if (done()) return;
  if (finish_seen()) {
    CompleteStream(out);
    return;
  }
  EndPrematurely("the stream ended before the model finished its answer", out);
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done()) return;
  std::optional<Json> doc = ParseBodyObject(body, out);
  if (!doc) return;
  if (const Json* error = FindField(*doc, "error")) {
    EndWithError(error_body::ClassifyStreamError(*error), out);
    return;
  }
  const Json* choices = FindField(*doc, "choices");
  if (choices == nullptr || !choices->is_array()) {
    ErrorEvent error;
    error.kind = ErrorKind::kUnknown;
    error.message = "the response body has no \"choices\"";
    EndWithError(std::move(error), out);
    return;
  }
  // Rewrite the document as one chunk whose delta is the whole message.
  Json chunk = Json::object();
  for (const char* key : {"id", "model", "usage"}) {
    if (const Json* value = FindField(*doc, key)) chunk[key] = *value;
  }
  chunk["choices"] = Json::array();
  for (const Json& choice : *choices) {
    Json synthetic = Json::object();
    if (const Json* index = FindField(choice, "index")) synthetic["index"] = *index;
    if (const Json* reason = FindField(choice, "finish_reason")) synthetic["finish_reason"] = *reason;
    if (const Json* message = FindField(choice, "message")) {
      Json delta = *message;
      auto calls = delta.is_object() ? delta.find("tool_calls") : delta.end();
      if (calls != delta.end() && calls->is_array()) {
        for (size_t i = 0; i < calls->size(); ++i) {
          Json& call = (*calls)[i];
          if (call.is_object() && !call.contains("index")) call["index"] = i;
        }
      }
      synthetic["delta"] = std::move(delta);
    }
    chunk["choices"].push_back(std::move(synthetic));
  }
  DecodeChunk(chunk, out);
  CompleteStream(out);  // a whole document is complete, finish_reason or not
}

}  // namespace raw::providers::openai_chat
