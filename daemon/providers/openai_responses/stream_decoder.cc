#include "daemon/providers/openai_responses/stream_decoder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/logging.h"
#include "daemon/providers/openai_responses/error_classifier.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/openai_responses/usage.h"
#include "daemon/providers/wire_fields.h"

namespace raw::providers::openai_responses {
namespace {

// Items are keyed by their id; an item without one (some compatible
// backends) by its output position.
std::string ItemKey(std::string_view id, std::optional<int64_t> output_index) {
  if (!id.empty()) return std::string(id);
  return absl::StrCat("#", output_index.value_or(0));
}

// The item an event refers to: "item_id", else "output_index".
std::string EventItemKey(const Json& event) {
  return ItemKey(StringOf(FindField(event, "item_id")), CountField(event, "output_index"));
}

std::string TextKey(const std::string& item_key, int64_t content_index) {
  return absl::StrCat(item_key, "/", content_index);
}

const Json& EmptyObject() {
  static const Json* const kEmpty = new Json(Json::object());
  return *kEmpty;
}

bool IsJsonObject(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  return parsed.ok() && parsed->is_object();
}

}  // namespace

void StreamDecoder::Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) {
  if (done()) return;
  absl::string_view stripped = absl::StripAsciiWhitespace(frame.data);
  std::string_view data(stripped.data(), stripped.size());
  if (data.empty() || data == "[DONE]") return;  // the terminal event decides, not [DONE]
  absl::StatusOr<Json> event = ParseJson(data);
  if (!event.ok()) {
    if (frame.event == "error") {
      EndWithError(ClassifyErrorEvent(Json(std::string(data))), out);
      return;
    }
    ErrorEvent error;
    error.kind = ErrorKind::kServer;
    error.retryable = true;
    error.message = absl::StrCat("malformed event in the stream: ", event.status().message());
    EndWithError(std::move(error), out);
    return;
  }
  std::string_view type = StringOf(FindField(*event, "type"));
  if (type.empty()) type = frame.event;
  DecodeEvent(type, *event, out);
}

void StreamDecoder::DecodeEvent(std::string_view type, const Json& event,
                                std::vector<ProviderEvent>* out) {
  if (type == "error") {
    EndWithError(ClassifyErrorEvent(event), out);
  } else if (type == "response.created" || type == "response.in_progress") {
    if (const Json* response = FindField(event, "response")) ReadResponseIdentity(*response);
    EnsureStarted(out);
  } else if (type == "response.output_item.added" || type == "response.output_item.done") {
    const Json* item = FindField(event, "item");
    if (item == nullptr || !item->is_object()) return;
    std::string key = ItemKey(StringOf(FindField(*item, "id")), CountField(event, "output_index"));
    if (type == "response.output_item.added") {
      OnItemAdded(key, *item, out);
    } else {
      OnItemDone(key, *item, out);
    }
  } else if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    if (type == "response.refusal.delta") refusal_seen_ = true;
    std::string_view delta = StringOf(FindField(event, "delta"));
    if (!delta.empty()) {
      EmitText(TextKey(EventItemKey(event), CountField(event, "content_index").value_or(0)), delta,
               out);
    }
  } else if (type == "response.reasoning_summary_text.delta" ||
             type == "response.reasoning_text.delta") {
    const char* index_key =
        type == "response.reasoning_text.delta" ? "content_index" : "summary_index";
    std::string_view delta = StringOf(FindField(event, "delta"));
    if (!delta.empty()) {
      EmitReasoning(EventItemKey(event), CountField(event, index_key).value_or(0), delta, out);
    }
  } else if (type == "response.function_call_arguments.delta") {
    std::string_view delta = StringOf(FindField(event, "delta"));
    if (delta.empty()) return;
    if (CallSlot* slot = CallFor(EventItemKey(event), out)) AppendArguments(*slot, delta, out);
  } else if (type == "response.function_call_arguments.done") {
    const Json* arguments = FindField(event, "arguments");
    if (arguments == nullptr || !arguments->is_string()) return;
    if (CallSlot* slot = CallFor(EventItemKey(event), out)) {
      SetFinalArguments(*slot, StringOf(arguments), out);
    }
  } else if (type == "response.completed" || type == "response.done" ||
             type == "response.incomplete") {
    const Json* response = FindField(event, "response");
    OnTerminal(type, response != nullptr ? *response : EmptyObject(), out);
  } else if (type == "response.failed") {
    const Json* response = FindField(event, "response");
    OnFailed(response != nullptr ? *response : EmptyObject(), out);
  }
  // Anything else (content_part.*, *.done of text, queued, annotations,
  // hosted-tool progress, events added later) carries nothing Raw needs.
}

void StreamDecoder::OnItemAdded(const std::string& key, const Json& item,
                                std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  if (StringOf(FindField(item, "type")) != "function_call") return;
  CallSlot* found = CallFor(key, out);
  if (found == nullptr) return;  // too many tool calls
  CallSlot& slot = *found;
  SetCallId(slot, StringOf(FindField(item, "call_id")));
  if (slot.name.empty()) slot.name = std::string(StringOf(FindField(item, "name")));
  if (!slot.started && !slot.name.empty()) StartCall(slot, out);
  std::string_view arguments = StringOf(FindField(item, "arguments"));
  // A whole call in one item: its arguments beyond what already arrived.
  if (arguments.starts_with(slot.arguments)) {
    AppendArguments(slot, arguments.substr(slot.arguments.size()), out);
  }
}

void StreamDecoder::OnItemDone(const std::string& key, const Json& item,
                               std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  std::string_view type = StringOf(FindField(item, "type"));
  if (type == "reasoning") {
    // A non-streamed item (or one whose deltas never came) shows its text.
    if (reasoning_parts_.count(key) == 0) {
      int64_t sub_index = 0;
      for (const char* field : {"summary", "content"}) {
        const Json* parts = FindField(item, field);
        if (parts == nullptr || !parts->is_array()) continue;
        for (const Json& part : *parts) {
          std::string_view text = StringOf(FindField(part, "text"));
          if (!text.empty()) EmitReasoning(key, sub_index, text, out);
          ++sub_index;
        }
      }
    }
    ReasoningPart& part = ReasoningPartFor(key);
    if (part.ended) return;
    part.ended = true;
    ReasoningEndEvent end;
    end.part_index = part.part_index;
    std::string_view encrypted = StringOf(FindField(item, "encrypted_content"));
    if (!encrypted.empty()) {
      end.opaque = events::OpaqueBlob{kOpaqueProvider, kReasoningItemKind,
                                      std::string(StringOf(FindField(item, "id"))),
                                      std::string(encrypted)};
    }
    out->push_back(std::move(end));
  } else if (type == "message") {
    const Json* content = FindField(item, "content");
    if (content == nullptr || !content->is_array()) return;
    for (size_t i = 0; i < content->size(); ++i) {
      const Json& part = (*content)[i];
      std::string_view part_type = StringOf(FindField(part, "type"));
      std::string_view text;
      if (part_type == "output_text") {
        text = StringOf(FindField(part, "text"));
      } else if (part_type == "refusal") {
        text = StringOf(FindField(part, "refusal"));
        if (!text.empty()) refusal_seen_ = true;
      }
      if (!text.empty()) CompleteText(TextKey(key, static_cast<int64_t>(i)), text, out);
    }
  } else if (type == "function_call") {
    CallSlot* found = CallFor(key, out);
    if (found == nullptr) return;  // too many tool calls
    CallSlot& slot = *found;
    SetCallId(slot, StringOf(FindField(item, "call_id")));
    if (slot.name.empty()) slot.name = std::string(StringOf(FindField(item, "name")));
    if (!slot.started && !slot.name.empty()) StartCall(slot, out);
    if (const Json* arguments = FindField(item, "arguments"); arguments && arguments->is_string()) {
      SetFinalArguments(slot, StringOf(arguments), out);
    }
  }
}

void StreamDecoder::OnTerminal(std::string_view type, const Json& response,
                               std::vector<ProviderEvent>* out) {
  if (done()) return;
  ReadResponseIdentity(response);
  std::string status(StringOf(FindField(response, "status")));
  if (status.empty()) status = type == "response.incomplete" ? "incomplete" : "completed";
  if (status == "failed") {
    OnFailed(response, out);
    return;
  }
  EnsureStarted(out);
  if (const Json* output = FindField(response, "output"); output && output->is_array()) {
    for (size_t i = 0; i < output->size(); ++i) {
      const Json& item = (*output)[i];
      if (!item.is_object()) continue;
      OnItemDone(ItemKey(StringOf(FindField(item, "id")), static_cast<int64_t>(i)), item, out);
      if (done()) return;  // too many tool calls
    }
  }
  for (auto& [key, part] : reasoning_parts_) {
    if (part.ended) continue;
    part.ended = true;
    out->push_back(ReasoningEndEvent{part.part_index, std::nullopt});
  }
  if (const Json* usage = FindField(response, "usage"); usage && usage->is_object()) {
    usage_ = NormalizeResponsesUsage(*usage);
  }

  FinishEvent finish;
  bool completed = status == "completed";
  if (completed) {
    finish.raw_reason = status;
  } else if (status == "incomplete") {
    const Json* details = FindField(response, "incomplete_details");
    finish.raw_reason = details ? std::string(StringOf(FindField(*details, "reason"))) : "";
    if (finish.raw_reason.empty()) finish.raw_reason = status;
    if (finish.raw_reason == "max_output_tokens") {
      finish.reason = FinishReason::kLength;
    } else if (finish.raw_reason == "content_filter") {
      finish.reason = FinishReason::kContentFilter;
    }
  } else {
    finish.raw_reason = status;  // cancelled, queued, ...: kUnknown
  }

  size_t complete_calls = 0;
  for (CallSlot& slot : calls_) {
    if (!slot.started) StartCall(slot, out);
    if (slot.arguments.empty()) {
      slot.arguments = "{}";
      out->push_back(ToolCallDeltaEvent{slot.call_index, slot.arguments});
    }
    ToolCallEndEvent end;
    end.call_index = slot.call_index;
    end.call_id = slot.call_id;
    end.name = slot.name;
    end.arguments = slot.arguments;
    end.complete = completed && !slot.name.empty() && IsJsonObject(slot.arguments);
    if (end.complete) ++complete_calls;
    out->push_back(std::move(end));
  }
  if (completed) {
    if (complete_calls > 0) {
      finish.reason = FinishReason::kToolCalls;
    } else if (!calls_.empty()) {
      finish.reason = FinishReason::kMalformedToolCall;
    } else if (refusal_seen_) {
      finish.reason = FinishReason::kContentFilter;
    } else {
      finish.reason = FinishReason::kStop;
    }
  }
  if (usage_) out->push_back(UsageEvent{*usage_});
  out->push_back(std::move(finish));
  MarkDone();
}

void StreamDecoder::OnFailed(const Json& response, std::vector<ProviderEvent>* out) {
  if (done()) return;
  if (const Json* usage = FindField(response, "usage"); usage && usage->is_object()) {
    usage_ = NormalizeResponsesUsage(*usage);
  }
  EndWithError(ClassifyFailedResponse(response), out);
}

void StreamDecoder::EmitText(const std::string& key, std::string_view text,
                             std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  auto [it, inserted] = text_parts_.try_emplace(key);
  if (inserted) it->second.part_index = next_part_index_++;
  it->second.text.append(text);
  MarkOutput();
  out->push_back(TextDeltaEvent{it->second.part_index, std::string(text)});
}

void StreamDecoder::CompleteText(const std::string& key, std::string_view final_text,
                                 std::vector<ProviderEvent>* out) {
  auto it = text_parts_.find(key);
  std::string_view streamed = it == text_parts_.end() ? "" : std::string_view(it->second.text);
  // What the user saw stays; only a missing tail is added.
  if (final_text.size() > streamed.size() && final_text.starts_with(streamed)) {
    EmitText(key, final_text.substr(streamed.size()), out);
  }
}

StreamDecoder::ReasoningPart& StreamDecoder::ReasoningPartFor(const std::string& item_key) {
  auto [it, inserted] = reasoning_parts_.try_emplace(item_key);
  if (inserted) it->second.part_index = next_part_index_++;
  return it->second;
}

void StreamDecoder::EmitReasoning(const std::string& item_key, int64_t sub_index,
                                  std::string_view text, std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  ReasoningPart& part = ReasoningPartFor(item_key);
  if (part.ended) return;  // late deltas of a finished item
  MarkOutput();
  if (part.has_text && sub_index != part.sub_index) {
    out->push_back(ReasoningDeltaEvent{part.part_index, "\n\n"});
  }
  part.has_text = true;
  part.sub_index = sub_index;
  out->push_back(ReasoningDeltaEvent{part.part_index, std::string(text)});
}

StreamDecoder::CallSlot* StreamDecoder::CallFor(const std::string& item_key,
                                                std::vector<ProviderEvent>* out) {
  auto it = call_by_item_.find(item_key);
  if (it != call_by_item_.end()) return &calls_[it->second];
  if (!AdmitCall(out)) return nullptr;
  CallSlot slot;
  slot.call_index = static_cast<int>(calls_.size());
  calls_.push_back(std::move(slot));
  call_by_item_[item_key] = calls_.size() - 1;
  // The key stays for the whole response; the overhead until StartCall.
  Hold(item_key.size() + kToolCallOverheadBytes);
  return &calls_.back();
}

void StreamDecoder::SetCallId(CallSlot& slot, std::string_view call_id) {
  if (!slot.call_id.empty() || call_id.empty()) return;
  slot.call_id = std::string(call_id);
  if (!slot.started) Hold(slot.call_id.size());  // until StartCall lets it out
}

void StreamDecoder::StartCall(CallSlot& slot, std::vector<ProviderEvent>* out) {
  EnsureStarted(out);
  // The event carries what was held from here on.
  Release(kToolCallOverheadBytes + slot.call_id.size() + slot.arguments.size());
  if (slot.call_id.empty()) {
    slot.call_id = response_id().empty()
                       ? absl::StrCat("call_", slot.call_index)
                       : absl::StrCat("call_", response_id(), "_", slot.call_index);
  }
  slot.started = true;
  MarkOutput();
  out->push_back(ToolCallStartEvent{slot.call_index, slot.call_id, slot.name});
  if (!slot.arguments.empty()) out->push_back(ToolCallDeltaEvent{slot.call_index, slot.arguments});
}

void StreamDecoder::AppendArguments(CallSlot& slot, std::string_view fragment,
                                    std::vector<ProviderEvent>* out) {
  if (fragment.empty() || slot.final_arguments) return;
  slot.arguments.append(fragment);
  // Before its name is known a call is buffered; StartCall sends it whole.
  if (slot.started) {
    out->push_back(ToolCallDeltaEvent{slot.call_index, std::string(fragment)});
  } else {
    Hold(fragment.size());
  }
}

void StreamDecoder::SetFinalArguments(CallSlot& slot, std::string_view arguments,
                                      std::vector<ProviderEvent>* out) {
  if (slot.final_arguments) return;
  if (arguments.starts_with(slot.arguments)) {
    AppendArguments(slot, arguments.substr(slot.arguments.size()), out);
  } else {
    // The final value wins; the deltas already sent cannot be taken back.
    RAW_LOG(Warning) << "tool call " << slot.call_id
                     << ": streamed arguments differ from the final value";
    if (!slot.started) {
      Release(slot.arguments.size());
      Hold(arguments.size());
    }
    slot.arguments = std::string(arguments);
  }
  slot.final_arguments = true;
}

void StreamDecoder::ReadResponseIdentity(const Json& response) {
  NoteIdentity(StringOf(FindField(response, "id")), StringOf(FindField(response, "model")));
}

void StreamDecoder::Finish(std::vector<ProviderEvent>* out) {
  if (done()) return;
  EndPrematurely("the stream ended before the response was complete", out);
}

void StreamDecoder::DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) {
  if (done()) return;
  std::optional<Json> doc = ParseBodyObject(body, out);
  if (!doc) return;
  if (FindField(*doc, "output") == nullptr) {
    if (FindField(*doc, "error") != nullptr) {
      EndWithError(ClassifyErrorEvent(*doc), out);
      return;
    }
    ErrorEvent error;
    error.kind = ErrorKind::kUnknown;
    error.message = "the response body has no \"output\"";
    EndWithError(std::move(error), out);
    return;
  }
  ReadResponseIdentity(*doc);
  OnTerminal("response.completed", *doc, out);
}

}  // namespace raw::providers::openai_responses
