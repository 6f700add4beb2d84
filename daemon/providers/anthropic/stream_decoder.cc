#include "daemon/providers/anthropic/stream_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/error_body.h"
#include "daemon/providers/wire_fields.h"

namespace raw::providers::anthropic {
namespace {

// Stop reasons after which the calls of the answer may run.
bool CallsMayComplete(std::string_view reason) {
  return reason.empty() || reason == "tool_use" || reason == "end_turn" ||
         reason == "stop_sequence";
}

FinishReason MapFinish(std::string_view reason, bool any_call, bool any_complete_call) {
  if (any_complete_call) return FinishReason::kToolCalls;
  if (reason == "end_turn" || reason == "stop_sequence") return FinishReason::kStop;
  if (reason == "tool_use") {
    return any_call ? FinishReason::kMalformedToolCall : FinishReason::kUnknown;
  }
  if (reason == "max_tokens") return FinishReason::kLength;
  if (reason == "model_context_window_exceeded") return FinishReason::kContextWindow;
  if (reason == "refusal") return FinishReason::kContentFilter;
  if (reason == "pause_turn") return FinishReason::kPauseTurn;
  if (reason.empty() && any_call) return FinishReason::kMalformedToolCall;
  return FinishReason::kUnknown;
}

bool IsJsonObject(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  return parsed.ok() && parsed->is_object();
}

ErrorEvent MalformedError(std::string message) {
  ErrorEvent error;
  error.kind = ErrorKind::kServer;
  error.retryable = true;
  error.message = std::move(message);
  return error;
}

}  // namespace

void StreamDecoder::Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done()) return;
  absl::string_view stripped = absl::StripAsciiWhitespace(frame.data);
  std::string_view data(stripped.data(), stripped.size());
  absl::StatusOr<Json> event = ParseJson(data);
  if (!event.ok()) {
    if (frame.event == "error") {
      // An error event whose payload is not JSON: keep its text.
      EndWithError(error_body::ClassifyStreamError(Json(std::string(data))), out);
      return;
    }
    if (frame.event == "ping" || data.empty()) return;
    EndWithError(
        MalformedError(absl::StrCat("malformed event in the stream: ", event.status().message())),
        out);
    return;
  }
  std::string_view type = StringOf(FindField(*event, "type"));
  if (type.empty()) type = frame.event;
  DecodeEvent(*event, type, out);
}

void StreamDecoder::DecodeEvent(const Json& event, std::string_view type,
                                std::vector<ProviderEvent>* out) {
  if (type == "message_start") {
    OnMessageStart(event, out);
  } else if (type == "content_block_start") {
    OnBlockStart(event, out);
  } else if (type == "content_block_delta") {
    OnBlockDelta(event, out);
  } else if (type == "content_block_stop") {
    OnBlockStop(event, out);
  } else if (type == "message_delta") {
    OnMessageDelta(event);
  } else if (type == "message_stop") {
    CompleteStream(out);
  } else if (type == "error") {
    EndWithError(error_body::ClassifyStreamError(event), out);
  }
  // ping and event types added later are ignored.
}

void StreamDecoder::OnMessageStart(const Json& event, std::vector<ProviderEvent>* out) {
  if (started()) return;
  if (const Json* message = FindField(event, "message")) {
    NoteIdentity(StringOf(FindField(*message, "id")), StringOf(FindField(*message, "model")));
    if (const Json* usage = FindField(*message, "usage")) usage_.ApplyStart(*usage);
  }
  EnsureStarted(out);
}

void StreamDecoder::OnBlockStart(const Json& event, std::vector<ProviderEvent>* out) {
  const Json* content = FindField(event, "content_block");
  std::optional<int64_t> index = CountField(event, "index");
  if (content == nullptr || !index.has_value()) return;
  EnsureStarted(out);
  std::string_view kind = StringOf(FindField(*content, "type"));
  Block block;
  if (kind == "text") {
    block.kind = BlockKind::kText;
  } else if (kind == "thinking") {
    block.kind = BlockKind::kThinking;
    block.signature = StringOf(FindField(*content, "signature"));
  } else if (kind == "redacted_thinking") {
    block.kind = BlockKind::kRedactedThinking;
    block.redacted_data = StringOf(FindField(*content, "data"));
  } else if (kind == "tool_use") {
    block.kind = BlockKind::kToolUse;
  }
  if (block.kind == BlockKind::kThinking || block.kind == BlockKind::kRedactedThinking) {
    block.part_index = next_part_++;  // ends with ReasoningEnd even without text
  }
  if (block.kind == BlockKind::kToolUse) {
    if (!AdmitCall(out)) return;  // too many tool calls: the response ended
    Call call;
    call.id = StringOf(FindField(*content, "id"));
    call.name = StringOf(FindField(*content, "name"));
    // The "input":{} of the start event is a placeholder; the arguments
    // are the input_json_delta fragments.
    block.call = static_cast<int>(calls_.size());
    if (call.id.empty()) call.id = absl::StrCat("toolu_missing_", block.call);
    calls_.push_back(std::move(call));
    MarkOutput();
    out->push_back(ToolCallStartEvent{block.call, calls_.back().id, calls_.back().name});
  }
  if (auto open = blocks_.find(*index); open != blocks_.end()) Release(open->second.held());
  Hold(block.held());
  Block& stored = blocks_[*index] = std::move(block);
  if (stored.kind == BlockKind::kText) {
    std::string_view text = StringOf(FindField(*content, "text"));
    if (!text.empty()) EmitText(stored, text, out);
  } else if (stored.kind == BlockKind::kThinking) {
    std::string_view text = StringOf(FindField(*content, "thinking"));
    if (!text.empty()) EmitReasoning(stored, text, out);
  }
}

void StreamDecoder::OnBlockDelta(const Json& event, std::vector<ProviderEvent>* out) {
  std::optional<int64_t> index = CountField(event, "index");
  const Json* delta = FindField(event, "delta");
  if (!index.has_value() || delta == nullptr) return;
  auto it = blocks_.find(*index);
  if (it == blocks_.end()) return;
  Block& block = it->second;
  std::string_view kind = StringOf(FindField(*delta, "type"));
  if (kind == "text_delta" && block.kind == BlockKind::kText) {
    std::string_view text = StringOf(FindField(*delta, "text"));
    if (!text.empty()) EmitText(block, text, out);
  } else if (kind == "thinking_delta" && block.kind == BlockKind::kThinking) {
    std::string_view text = StringOf(FindField(*delta, "thinking"));
    if (!text.empty()) EmitReasoning(block, text, out);
  } else if (kind == "signature_delta" && block.kind == BlockKind::kThinking) {
    // As the SDK does: the delta carries the whole signature.
    Release(block.signature.size());
    block.signature = StringOf(FindField(*delta, "signature"));
    Hold(block.signature.size());
  } else if (kind == "input_json_delta" && block.kind == BlockKind::kToolUse) {
    std::string_view piece = StringOf(FindField(*delta, "partial_json"));
    if (piece.empty()) return;
    Call& call = calls_[static_cast<size_t>(block.call)];
    if (call.closed) return;
    call.arguments.append(piece);
    out->push_back(ToolCallDeltaEvent{block.call, std::string(piece)});
  }
  // citations_delta and deltas of server-tool blocks are not surfaced.
}

void StreamDecoder::OnBlockStop(const Json& event, std::vector<ProviderEvent>* out) {
  std::optional<int64_t> index = CountField(event, "index");
  if (!index.has_value()) return;
  auto it = blocks_.find(*index);
  if (it == blocks_.end()) return;
  Block block = std::move(it->second);
  blocks_.erase(it);
  Release(block.held());
  switch (block.kind) {
    case BlockKind::kThinking: {
      ReasoningEndEvent end;
      end.part_index = block.part_index;
      if (!block.signature.empty()) {
        end.opaque = events::OpaqueBlob{kOpaqueProvider, kThinkingSignatureKind,
                                        absl::StrCat(block.thinking_bytes), block.signature};
      }
      out->push_back(std::move(end));
      break;
    }
    case BlockKind::kRedactedThinking: {
      ReasoningEndEvent end;
      end.part_index = block.part_index;
      if (!block.redacted_data.empty()) {
        end.opaque =
            events::OpaqueBlob{kOpaqueProvider, kRedactedThinkingKind, "", block.redacted_data};
      }
      out->push_back(std::move(end));
      break;
    }
    case BlockKind::kToolUse: {
      Call& call = calls_[static_cast<size_t>(block.call)];
      call.closed = true;
      if (call.arguments.empty()) {
        // A tool without arguments: the API sends no fragment (or one
        // empty fragment) and means {}.
        call.arguments = "{}";
        out->push_back(ToolCallDeltaEvent{block.call, call.arguments});
      }
      break;
    }
    case BlockKind::kText:
    case BlockKind::kOther:
      break;
  }
}

void StreamDecoder::OnMessageDelta(const Json& event) {
  if (const Json* delta = FindField(event, "delta")) {
    std::string_view reason = StringOf(FindField(*delta, "stop_reason"));
    if (!reason.empty()) stop_reason_ = std::string(reason);
  }
  if (const Json* usage = FindField(event, "usage")) usage_.ApplyDelta(*usage);
}

void StreamDecoder::EmitText(Block& block, std::string_view text, std::vector<ProviderEvent>* out) {
  if (block.part_index < 0) block.part_index = next_part_++;
  MarkOutput();
  out->push_back(TextDeltaEvent{block.part_index, std::string(text)});
}

void StreamDecoder::EmitReasoning(Block& block, std::string_view text,
                                  std::vector<ProviderEvent>* out) {
  block.thinking_bytes += text.size();
  MarkOutput();
  out->push_back(ReasoningDeltaEvent{block.part_index, std::string(text)});
}

void StreamDecoder::CompleteStream(std::vector<ProviderEvent>* out) {
  if (done()) return;
  EnsureStarted(out);
  std::string reason = stop_reason_.value_or("");
  bool may_complete = CallsMayComplete(reason);
  bool any_complete = false;
  for (size_t i = 0; i < calls_.size(); ++i) {
    Call& call = calls_[i];
    int call_index = static_cast<int>(i);
    ToolCallEndEvent end;
    end.call_index = call_index;
    end.call_id = call.id;
    end.name = call.name;
    end.arguments = call.arguments;
    end.complete =
        may_complete && call.closed && !call.name.empty() && IsJsonObject(call.arguments);
    any_complete = any_complete || end.complete;
    out->push_back(std::move(end));
  }
  if (usage_.seen()) out->push_back(UsageEvent{usage_.ToUsage()});
  FinishEvent finish;
  finish.reason = MapFinish(reason, !calls_.empty(), any_complete);
  finish.raw_reason = std::move(reason);
  out->push_back(std::move(finish));
  MarkDone();
}

void StreamDecoder::Finish(std::vector<ProviderEvent>* out) {
  if (done()) return;
  EndPrematurely("the stream ended before the model finished its answer (no message_stop)", out);
}

std::optional<events::Usage> StreamDecoder::FinalUsageSoFar() const {
  if (!usage_.final()) return std::nullopt;
  return usage_.ToUsage();
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done()) return;
  std::optional<Json> doc = ParseBodyObject(body, out);
  if (!doc) return;
  if (StringOf(FindField(*doc, "type")) == "error" || FindField(*doc, "error") != nullptr) {
    EndWithError(error_body::ClassifyStreamError(*doc), out);
    return;
  }
  const Json* content = FindField(*doc, "content");
  if (content == nullptr || !content->is_array()) {
    ErrorEvent error;
    error.kind = ErrorKind::kUnknown;
    error.message = "the response body has no \"content\" array";
    EndWithError(std::move(error), out);
    return;
  }
  // Replay the document as the stream that would have carried it.
  Json message = Json::object();
  for (const char* key : {"id", "model", "usage"}) {
    if (const Json* value = FindField(*doc, key)) message[key] = *value;
  }
  DecodeEvent(Json{{"message", message}}, "message_start", out);
  for (size_t i = 0; i < content->size(); ++i) {
    if (done()) return;
    const Json& block = (*content)[i];
    DecodeEvent(Json{{"index", i}, {"content_block", block}}, "content_block_start", out);
    if (StringOf(FindField(block, "type")) == "tool_use") {
      const Json* input = FindField(block, "input");
      std::string arguments = input != nullptr ? DumpJson(*input) : "{}";
      Json delta = {{"type", "input_json_delta"}, {"partial_json", arguments}};
      DecodeEvent(Json{{"index", i}, {"delta", delta}}, "content_block_delta", out);
    }
    DecodeEvent(Json{{"index", i}}, "content_block_stop", out);
  }
  Json delta_event = Json::object();
  delta_event["delta"] = Json{{"stop_reason", StringOf(FindField(*doc, "stop_reason"))}};
  if (const Json* usage = FindField(*doc, "usage")) delta_event["usage"] = *usage;
  DecodeEvent(delta_event, "message_delta", out);
  CompleteStream(out);  // a whole document is complete
}

}  // namespace raw::providers::anthropic
