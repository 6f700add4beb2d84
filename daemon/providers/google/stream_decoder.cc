#include "daemon/providers/google/stream_decoder.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/google/call_id.h"
#include "daemon/providers/google/error_classifier.h"
#include "daemon/providers/google/thought_signature.h"
#include "daemon/providers/wire_fields.h"

namespace raw::providers::google {
namespace {

bool IsContentFilter(std::string_view raw) {
  return raw == "SAFETY" || raw == "RECITATION" || raw == "LANGUAGE" || raw == "BLOCKLIST" ||
         raw == "PROHIBITED_CONTENT" || raw == "SPII" || raw == "NO_IMAGE" ||
         absl::StartsWith(absl::string_view(raw.data(), raw.size()), "IMAGE_");
}

FinishReason MapFinish(std::string_view raw, bool blocked, size_t calls, size_t complete_calls) {
  if (blocked || IsContentFilter(raw)) return FinishReason::kContentFilter;
  if (raw == "STOP") {
    if (complete_calls > 0) return FinishReason::kToolCalls;
    if (calls > 0) return FinishReason::kMalformedToolCall;
    return FinishReason::kStop;
  }
  if (raw == "MAX_TOKENS") return FinishReason::kLength;
  if (raw == "MALFORMED_FUNCTION_CALL" || raw == "UNEXPECTED_TOOL_CALL" ||
      raw == "TOO_MANY_TOOL_CALLS") {
    return FinishReason::kMalformedToolCall;
  }
  return FinishReason::kUnknown;
}

}  // namespace

events::Usage NormalizeGeminiUsage(const OrderedJson& usage) {
  events::Usage out;
  if (!usage.is_object()) return out;
  out.input_tokens = CountField(usage, "promptTokenCount");
  // Zero counts are omitted on the wire; a record with its prompt count is
  // complete enough to read an omission as 0 (a value that is there but
  // not a plausible count stays unknown).
  std::optional<int64_t> omitted_zero;
  if (out.input_tokens.has_value()) omitted_zero = 0;
  auto count = [&usage, &omitted_zero](const char* key) {
    return FindField(usage, key) == nullptr ? omitted_zero : CountField(usage, key);
  };
  out.cache_read_tokens = count("cachedContentTokenCount");
  out.reasoning_tokens = count("thoughtsTokenCount");
  std::optional<int64_t> candidates = count("candidatesTokenCount");
  if (candidates && out.reasoning_tokens) out.output_tokens = *candidates + *out.reasoning_tokens;
  return out;
}

void StreamDecoder::Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done()) return;
  absl::string_view stripped = absl::StripAsciiWhitespace(frame.data);
  std::string_view data(stripped.data(), stripped.size());
  if (data.empty()) return;
  // Parsed in order-keeping form so that args keep the model's key order.
  absl::StatusOr<OrderedJson> doc = ParseOrderedJson(data);
  if (!doc.ok()) {
    absl::string_view detail = doc.status().message();
    MalformedChunk(std::string_view(detail.data(), detail.size()), out);
    return;
  }
  DecodeDocument(*doc, out);
}

void StreamDecoder::DecodeDocument(const OrderedJson& doc, std::vector<ProviderEvent>* out) {
  if (doc.is_array()) {
    for (const OrderedJson& chunk : doc) {
      if (done()) return;
      DecodeChunk(chunk, out);
    }
    return;
  }
  DecodeChunk(doc, out);
}

void StreamDecoder::MalformedChunk(std::string_view detail, std::vector<ProviderEvent>* out) {
  ErrorEvent error;
  error.kind = ErrorKind::kServer;
  error.retryable = true;
  error.message = absl::StrCat("malformed chunk in the stream: ",
                               absl::string_view(detail.data(), detail.size()));
  EndWithError(std::move(error), out);
}

void StreamDecoder::DecodeChunk(const OrderedJson& chunk, std::vector<ProviderEvent>* out) {
  if (!chunk.is_object()) return;
  if (const OrderedJson* error = FindField(chunk, "error")) {
    absl::StatusOr<Json> plain = ParseJson(DumpJson(*error));
    EndWithError(ClassifyStreamError(plain.ok() ? *plain : Json()), out);
    return;
  }
  NoteIdentity(StringOf(FindField(chunk, "responseId")), StringOf(FindField(chunk, "modelVersion")));
  EnsureStarted(out);
  if (const OrderedJson* usage = FindField(chunk, "usageMetadata"); usage && usage->is_object()) {
    usage_ = *usage;
  }
  if (const OrderedJson* feedback = FindField(chunk, "promptFeedback")) {
    std::string block(StringOf(FindField(*feedback, "blockReason")));
    if (!block.empty()) {
      prompt_blocked_ = true;
      finish_reason_ = block;
    }
  }
  const OrderedJson* candidates = FindField(chunk, "candidates");
  if (candidates == nullptr || !candidates->is_array()) return;
  for (const OrderedJson& candidate : *candidates) {
    std::optional<int64_t> index = CountField(candidate, "index");
    if (index.has_value() && *index != 0) continue;  // one candidate is asked for
    if (const OrderedJson* content = FindField(candidate, "content")) {
      const OrderedJson* parts = FindField(*content, "parts");
      if (parts != nullptr && parts->is_array()) {
        for (const OrderedJson& part : *parts) {
          DecodePart(part, out);
          if (done()) return;  // too many tool calls
        }
      }
    }
    std::string reason(StringOf(FindField(candidate, "finishReason")));
    if (!reason.empty() && !prompt_blocked_) finish_reason_ = std::move(reason);
  }
}

void StreamDecoder::DecodePart(const OrderedJson& part, std::vector<ProviderEvent>* out) {
  if (!part.is_object()) return;
  std::string signature(StringOf(FindField(part, "thoughtSignature")));
  if (const OrderedJson* call = FindField(part, "functionCall")) {
    DecodeCall(*call, signature, out);
    return;
  }
  const OrderedJson* text = FindField(part, "text");
  if (text == nullptr || !text->is_string()) return;  // inlineData, executableCode, ...
  const std::string& value = text->get_ref<const std::string&>();
  const OrderedJson* thought = FindField(part, "thought");
  if (thought != nullptr && thought->is_boolean() && thought->get<bool>()) {
    if (!value.empty()) EmitReasoning(value, out);
    if (!signature.empty()) EmitSignature(kThoughtAnchor, signature, out);
    return;
  }
  if (!value.empty()) EmitText(value, out);
  if (!signature.empty()) EmitSignature(kTextAnchor, signature, out);
}

void StreamDecoder::DecodeCall(const OrderedJson& function_call, const std::string& signature,
                               std::vector<ProviderEvent>* out) {
  if (!AdmitCall(out)) return;  // too many tool calls: the response ended
  EndReasoningPart(out);
  Call call;
  call.call_index = static_cast<int>(calls_.size());
  call.id = StringOf(FindField(function_call, "id"));
  if (call.id.empty()) call.id = SyntheticCallId(response_id(), call.call_index);
  call.name = StringOf(FindField(function_call, "name"));
  const OrderedJson* args = FindField(function_call, "args");
  if (args == nullptr) {
    call.arguments = "{}";
    call.well_formed = !call.name.empty();
  } else {
    call.arguments = DumpJson(*args);
    call.well_formed = !call.name.empty() && args->is_object();
  }
  if (!signature.empty()) EmitSignature(CallAnchor(call.id), signature, out);
  MarkOutput();
  out->push_back(ToolCallStartEvent{call.call_index, call.id, call.name});
  out->push_back(ToolCallDeltaEvent{call.call_index, call.arguments});
  calls_.push_back(std::move(call));
}

void StreamDecoder::EmitText(std::string_view text, std::vector<ProviderEvent>* out) {
  if (part_kind_ != PartKind::kText) {
    EndReasoningPart(out);
    ++part_index_;
    part_kind_ = PartKind::kText;
  }
  MarkOutput();
  out->push_back(TextDeltaEvent{part_index_, std::string(text)});
}

void StreamDecoder::EmitReasoning(std::string_view text, std::vector<ProviderEvent>* out) {
  if (part_kind_ != PartKind::kReasoning) {
    ++part_index_;
    part_kind_ = PartKind::kReasoning;
    reasoning_opaque_.reset();
  }
  MarkOutput();
  out->push_back(ReasoningDeltaEvent{part_index_, std::string(text)});
}

void StreamDecoder::EmitSignature(std::string anchor, const std::string& signature,
                                  std::vector<ProviderEvent>* out) {
  events::OpaqueBlob blob{kOpaqueProvider, kThoughtSignatureKind, std::move(anchor), signature};
  if (blob.id == kThoughtAnchor && part_kind_ == PartKind::kReasoning && !reasoning_opaque_) {
    reasoning_opaque_ = std::move(blob);  // sent with the part's ReasoningEnd
    return;
  }
  EndReasoningPart(out);
  ++part_index_;
  part_kind_ = PartKind::kNone;
  out->push_back(ReasoningEndEvent{part_index_, std::move(blob)});
}

void StreamDecoder::EndReasoningPart(std::vector<ProviderEvent>* out) {
  if (part_kind_ != PartKind::kReasoning) return;
  out->push_back(ReasoningEndEvent{part_index_, std::move(reasoning_opaque_)});
  reasoning_opaque_.reset();
  part_kind_ = PartKind::kNone;
}

void StreamDecoder::CompleteStream(std::vector<ProviderEvent>* out) {
  if (done()) return;
  EnsureStarted(out);
  EndReasoningPart(out);
  std::string raw = finish_reason_.value_or("");
  bool may_complete = raw == "STOP" && !prompt_blocked_;
  size_t complete_calls = 0;
  for (const Call& call : calls_) {
    ToolCallEndEvent end;
    end.call_index = call.call_index;
    end.call_id = call.id;
    end.name = call.name;
    end.arguments = call.arguments;
    end.complete = may_complete && call.well_formed;
    if (end.complete) ++complete_calls;
    out->push_back(std::move(end));
  }
  if (usage_) out->push_back(UsageEvent{NormalizeGeminiUsage(*usage_)});
  FinishEvent finish;
  finish.reason = MapFinish(raw, prompt_blocked_, calls_.size(), complete_calls);
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
  EndPrematurely("the stream ended before the model finished its answer (no finishReason)", out);
}

std::optional<events::Usage> StreamDecoder::FinalUsageSoFar() const {
  // Only the prompt count of an unfinished response is final.
  if (!usage_) return std::nullopt;
  events::Usage usage;
  usage.input_tokens = CountField(*usage_, "promptTokenCount");
  if (!usage.input_tokens) return std::nullopt;
  return usage;
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done()) return;
  absl::StatusOr<OrderedJson> doc = ParseOrderedJson(body);
  if (!doc.ok() || !(doc->is_object() || doc->is_array())) {
    ErrorEvent error;
    error.kind = ErrorKind::kUnknown;
    error.message = doc.ok() ? "the response body is neither a JSON object nor an array"
                             : absl::StrCat("the response body is not valid JSON: ",
                                            doc.status().message());
    EndWithError(std::move(error), out);
    return;
  }
  DecodeDocument(*doc, out);
  Finish(out);
}

}  // namespace raw::providers::google
