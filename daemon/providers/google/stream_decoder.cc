#include "daemon/providers/google/stream_decoder.h"

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/google/call_id.h"
#include "daemon/providers/google/error_classifier.h"
#include "daemon/providers/google/thought_signature.h"

namespace raw::providers::google {
namespace {

const OrderedJson* Find(const OrderedJson& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string StringOf(const OrderedJson* value) {
  if (value == nullptr || !value->is_string()) return "";
  return value->get<std::string>();
}

// A token count: a non-negative whole number (proto3 JSON may quote int64).
std::optional<int64_t> Count(const OrderedJson& object, const char* key) {
  const OrderedJson* value = Find(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) return static_cast<int64_t>(value->get<uint64_t>());
  if (value->is_number_integer()) {
    int64_t n = value->get<int64_t>();
    return n >= 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  if (value->is_number_float()) {
    double d = value->get<double>();
    if (d >= 0 && d < 9e18 && std::floor(d) == d) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

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
  out.input_tokens = Count(usage, "promptTokenCount");
  // Zero counts are omitted on the wire; a record with its prompt count is
  // complete enough to read an omission as 0.
  std::optional<int64_t> omitted_zero;
  if (out.input_tokens.has_value()) omitted_zero = 0;
  out.cache_read_tokens = Count(usage, "cachedContentTokenCount");
  if (!out.cache_read_tokens) out.cache_read_tokens = omitted_zero;
  out.reasoning_tokens = Count(usage, "thoughtsTokenCount");
  if (!out.reasoning_tokens) out.reasoning_tokens = omitted_zero;
  std::optional<int64_t> candidates = Count(usage, "candidatesTokenCount");
  if (!candidates) candidates = omitted_zero;
  if (candidates && out.reasoning_tokens) out.output_tokens = *candidates + *out.reasoning_tokens;
  return out;
}

void StreamDecoder::Decode(const sse::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done_) return;
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
      if (done_) return;
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
  if (const OrderedJson* error = Find(chunk, "error")) {
    absl::StatusOr<Json> plain = ParseJson(DumpJson(*error));
    EndWithError(ClassifyStreamError(plain.ok() ? *plain : Json()), out);
    return;
  }
  if (response_id_.empty()) response_id_ = StringOf(Find(chunk, "responseId"));
  if (model_.empty()) model_ = StringOf(Find(chunk, "modelVersion"));
  EnsureStarted(out);
  if (const OrderedJson* usage = Find(chunk, "usageMetadata"); usage && usage->is_object()) {
    usage_ = *usage;
  }
  if (const OrderedJson* feedback = Find(chunk, "promptFeedback")) {
    std::string block = StringOf(Find(*feedback, "blockReason"));
    if (!block.empty()) {
      prompt_blocked_ = true;
      finish_reason_ = block;
    }
  }
  const OrderedJson* candidates = Find(chunk, "candidates");
  if (candidates == nullptr || !candidates->is_array()) return;
  for (const OrderedJson& candidate : *candidates) {
    std::optional<int64_t> index = Count(candidate, "index");
    if (index.has_value() && *index != 0) continue;  // one candidate is asked for
    if (const OrderedJson* content = Find(candidate, "content")) {
      const OrderedJson* parts = Find(*content, "parts");
      if (parts != nullptr && parts->is_array()) {
        for (const OrderedJson& part : *parts) DecodePart(part, out);
      }
    }
    std::string reason = StringOf(Find(candidate, "finishReason"));
    if (!reason.empty() && !prompt_blocked_) finish_reason_ = std::move(reason);
  }
}

void StreamDecoder::DecodePart(const OrderedJson& part, std::vector<ProviderEvent>* out) {
  if (!part.is_object()) return;
  std::string signature = StringOf(Find(part, "thoughtSignature"));
  if (const OrderedJson* call = Find(part, "functionCall")) {
    DecodeCall(*call, signature, out);
    return;
  }
  const OrderedJson* text = Find(part, "text");
  if (text == nullptr || !text->is_string()) return;  // inlineData, executableCode, ...
  const std::string& value = text->get_ref<const std::string&>();
  const OrderedJson* thought = Find(part, "thought");
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
  EndReasoningPart(out);
  Call call;
  call.call_index = static_cast<int>(calls_.size());
  call.id = StringOf(Find(function_call, "id"));
  if (call.id.empty()) call.id = SyntheticCallId(response_id_, call.call_index);
  call.name = StringOf(Find(function_call, "name"));
  const OrderedJson* args = Find(function_call, "args");
  if (args == nullptr) {
    call.arguments = "{}";
    call.well_formed = !call.name.empty();
  } else {
    call.arguments = DumpJson(*args);
    call.well_formed = !call.name.empty() && args->is_object();
  }
  if (!signature.empty()) EmitSignature(CallAnchor(call.id), signature, out);
  after_output_ = true;
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
  after_output_ = true;
  out->push_back(TextDeltaEvent{part_index_, std::string(text)});
}

void StreamDecoder::EmitReasoning(std::string_view text, std::vector<ProviderEvent>* out) {
  if (part_kind_ != PartKind::kReasoning) {
    ++part_index_;
    part_kind_ = PartKind::kReasoning;
    reasoning_opaque_.reset();
  }
  after_output_ = true;
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

void StreamDecoder::EnsureStarted(std::vector<ProviderEvent>* out) {
  if (started_) return;
  started_ = true;
  out->push_back(StartEvent{response_id_, model_});
}

void StreamDecoder::CompleteStream(std::vector<ProviderEvent>* out) {
  if (done_) return;
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
  done_ = true;
}

void StreamDecoder::Finish(std::vector<ProviderEvent>* out) {
  if (done_) return;
  if (finish_seen()) {
    CompleteStream(out);
    return;
  }
  ErrorEvent error;
  error.kind = ErrorKind::kPrematureEof;
  error.retryable = true;
  error.message = "the stream ended before the model finished its answer (no finishReason)";
  EndWithError(std::move(error), out);
}

void StreamDecoder::Fail(ErrorEvent error, std::vector<ProviderEvent>* out) {
  EndWithError(std::move(error), out);
}

void StreamDecoder::EndWithError(ErrorEvent error, std::vector<ProviderEvent>* out) {
  if (done_) return;
  error.after_output = after_output_;
  if (usage_) {
    // Only the prompt count of an unfinished response is final.
    events::Usage usage;
    usage.input_tokens = Count(*usage_, "promptTokenCount");
    if (usage.input_tokens) out->push_back(UsageEvent{usage});
  }
  out->push_back(std::move(error));
  done_ = true;
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done_) return;
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
