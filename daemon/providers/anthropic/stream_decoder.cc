#include "daemon/providers/anthropic/stream_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "daemon/providers/openai_chat/error_classifier.h"

namespace raw::providers::anthropic {
namespace {

const Json* Find(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string_view StringOf(const Json* value) {
  if (value == nullptr || !value->is_string()) return {};
  return value->get_ref<const std::string&>();
}

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

void StreamDecoder::Decode(const sse::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done_) return;
  absl::string_view stripped = absl::StripAsciiWhitespace(frame.data);
  std::string_view data(stripped.data(), stripped.size());
  absl::StatusOr<Json> event = ParseJson(data);
  if (!event.ok()) {
    if (frame.event == "error") {
      // An error event whose payload is not JSON: keep its text.
      EndWithError(openai_chat::ClassifyStreamError(Json(std::string(data))), out);
      return;
    }
    if (frame.event == "ping" || data.empty()) return;
    EndWithError(
        MalformedError(absl::StrCat("malformed event in the stream: ", event.status().message())),
        out);
    return;
  }
  std::string_view type = StringOf(Find(*event, "type"));
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
    EndWithError(openai_chat::ClassifyStreamError(event), out);
  }
  // ping and event types added later are ignored.
}

void StreamDecoder::OnMessageStart(const Json& event, std::vector<ProviderEvent>* out) {
  if (started_) return;
  const Json* message = Find(event, "message");
  started_ = true;
  StartEvent start;
  if (message != nullptr) {
    start.response_id = StringOf(Find(*message, "id"));
    start.model = StringOf(Find(*message, "model"));
    if (const Json* usage = Find(*message, "usage")) usage_.ApplyStart(*usage);
  }
  out->push_back(std::move(start));
}

void StreamDecoder::OnBlockStart(const Json& event, std::vector<ProviderEvent>* out) {
  const Json* content = Find(event, "content_block");
  std::optional<int64_t> index = TokenCount(event, "index");
  if (content == nullptr || !index.has_value()) return;
  EnsureStarted(out);
  std::string_view kind = StringOf(Find(*content, "type"));
  Block block;
  if (kind == "text") {
    block.kind = BlockKind::kText;
  } else if (kind == "thinking") {
    block.kind = BlockKind::kThinking;
    block.signature = StringOf(Find(*content, "signature"));
  } else if (kind == "redacted_thinking") {
    block.kind = BlockKind::kRedactedThinking;
    block.redacted_data = StringOf(Find(*content, "data"));
  } else if (kind == "tool_use") {
    block.kind = BlockKind::kToolUse;
  }
  if (block.kind == BlockKind::kThinking || block.kind == BlockKind::kRedactedThinking) {
    block.part_index = next_part_++;  // ends with ReasoningEnd even without text
  }
  if (block.kind == BlockKind::kToolUse) {
    Call call;
    call.id = StringOf(Find(*content, "id"));
    call.name = StringOf(Find(*content, "name"));
    // The "input":{} of the start event is a placeholder; the arguments
    // are the input_json_delta fragments.
    block.call = static_cast<int>(calls_.size());
    if (call.id.empty()) call.id = absl::StrCat("toolu_missing_", block.call);
    calls_.push_back(std::move(call));
    after_output_ = true;
    out->push_back(ToolCallStartEvent{block.call, calls_.back().id, calls_.back().name});
  }
  Block& stored = blocks_[*index] = std::move(block);
  if (stored.kind == BlockKind::kText) {
    std::string_view text = StringOf(Find(*content, "text"));
    if (!text.empty()) EmitText(stored, text, out);
  } else if (stored.kind == BlockKind::kThinking) {
    std::string_view text = StringOf(Find(*content, "thinking"));
    if (!text.empty()) EmitReasoning(stored, text, out);
  }
}

void StreamDecoder::OnBlockDelta(const Json& event, std::vector<ProviderEvent>* out) {
  std::optional<int64_t> index = TokenCount(event, "index");
  const Json* delta = Find(event, "delta");
  if (!index.has_value() || delta == nullptr) return;
  auto it = blocks_.find(*index);
  if (it == blocks_.end()) return;
  Block& block = it->second;
  std::string_view kind = StringOf(Find(*delta, "type"));
  if (kind == "text_delta" && block.kind == BlockKind::kText) {
    std::string_view text = StringOf(Find(*delta, "text"));
    if (!text.empty()) EmitText(block, text, out);
  } else if (kind == "thinking_delta" && block.kind == BlockKind::kThinking) {
    std::string_view text = StringOf(Find(*delta, "thinking"));
    if (!text.empty()) EmitReasoning(block, text, out);
  } else if (kind == "signature_delta" && block.kind == BlockKind::kThinking) {
    // As the SDK does: the delta carries the whole signature.
    block.signature = StringOf(Find(*delta, "signature"));
  } else if (kind == "input_json_delta" && block.kind == BlockKind::kToolUse) {
    std::string_view piece = StringOf(Find(*delta, "partial_json"));
    if (piece.empty()) return;
    Call& call = calls_[static_cast<size_t>(block.call)];
    if (call.closed) return;
    call.arguments.append(piece);
    out->push_back(ToolCallDeltaEvent{block.call, std::string(piece)});
  }
  // citations_delta and deltas of server-tool blocks are not surfaced.
}

void StreamDecoder::OnBlockStop(const Json& event, std::vector<ProviderEvent>* out) {
  std::optional<int64_t> index = TokenCount(event, "index");
  if (!index.has_value()) return;
  auto it = blocks_.find(*index);
  if (it == blocks_.end()) return;
  Block block = std::move(it->second);
  blocks_.erase(it);
  switch (block.kind) {
    case BlockKind::kThinking: {
      ReasoningEndEvent end;
      end.part_index = block.part_index;
      if (!block.signature.empty()) {
        end.opaque = events::OpaqueBlob{kOpaqueProvider, kThinkingSignatureKind,
                                        absl::StrCat(block.thinking.size()), block.signature};
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
  if (const Json* delta = Find(event, "delta")) {
    std::string_view reason = StringOf(Find(*delta, "stop_reason"));
    if (!reason.empty()) stop_reason_ = std::string(reason);
  }
  if (const Json* usage = Find(event, "usage")) usage_.ApplyDelta(*usage);
}

void StreamDecoder::EmitText(Block& block, std::string_view text, std::vector<ProviderEvent>* out) {
  if (block.part_index < 0) block.part_index = next_part_++;
  after_output_ = true;
  out->push_back(TextDeltaEvent{block.part_index, std::string(text)});
}

void StreamDecoder::EmitReasoning(Block& block, std::string_view text,
                                  std::vector<ProviderEvent>* out) {
  block.thinking.append(text);
  after_output_ = true;
  out->push_back(ReasoningDeltaEvent{block.part_index, std::string(text)});
}

void StreamDecoder::EnsureStarted(std::vector<ProviderEvent>* out) {
  if (started_) return;
  started_ = true;
  out->push_back(StartEvent{});
}

void StreamDecoder::CompleteStream(std::vector<ProviderEvent>* out) {
  if (done_) return;
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
  done_ = true;
}

void StreamDecoder::Finish(std::vector<ProviderEvent>* out) {
  if (done_) return;
  ErrorEvent error;
  error.kind = ErrorKind::kPrematureEof;
  error.retryable = true;
  error.message = "the stream ended before the model finished its answer (no message_stop)";
  EndWithError(std::move(error), out);
}

void StreamDecoder::Fail(ErrorEvent error, std::vector<ProviderEvent>* out) {
  EndWithError(std::move(error), out);
}

void StreamDecoder::EndWithError(ErrorEvent error, std::vector<ProviderEvent>* out) {
  if (done_) return;
  error.after_output = after_output_;
  if (usage_.final()) out->push_back(UsageEvent{usage_.ToUsage()});
  out->push_back(std::move(error));
  done_ = true;
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done_) return;
  absl::StatusOr<Json> doc = ParseJson(body);
  if (!doc.ok() || !doc->is_object()) {
    ErrorEvent error;
    error.kind = ErrorKind::kUnknown;
    error.message =
        doc.ok() ? "the response body is not a JSON object"
                 : absl::StrCat("the response body is not valid JSON: ", doc.status().message());
    EndWithError(std::move(error), out);
    return;
  }
  if (StringOf(Find(*doc, "type")) == "error" || Find(*doc, "error") != nullptr) {
    EndWithError(openai_chat::ClassifyStreamError(*doc), out);
    return;
  }
  const Json* content = Find(*doc, "content");
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
    if (const Json* value = Find(*doc, key)) message[key] = *value;
  }
  DecodeEvent(Json{{"message", message}}, "message_start", out);
  for (size_t i = 0; i < content->size(); ++i) {
    const Json& block = (*content)[i];
    DecodeEvent(Json{{"index", i}, {"content_block", block}}, "content_block_start", out);
    if (StringOf(Find(block, "type")) == "tool_use") {
      const Json* input = Find(block, "input");
      std::string arguments = input != nullptr ? DumpJson(*input) : "{}";
      Json delta = {{"type", "input_json_delta"}, {"partial_json", arguments}};
      DecodeEvent(Json{{"index", i}, {"delta", delta}}, "content_block_delta", out);
    }
    DecodeEvent(Json{{"index", i}}, "content_block_stop", out);
  }
  Json delta_event = Json::object();
  delta_event["delta"] = Json{{"stop_reason", StringOf(Find(*doc, "stop_reason"))}};
  if (const Json* usage = Find(*doc, "usage")) delta_event["usage"] = *usage;
  DecodeEvent(delta_event, "message_delta", out);
  CompleteStream(out);  // a whole document is complete
}

}  // namespace raw::providers::anthropic
