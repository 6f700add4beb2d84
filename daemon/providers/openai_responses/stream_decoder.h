// StreamDecoder: the pure per-frame decoder of an OpenAI Responses stream.
// SSE frame in, zero or more neutral ProviderEvents out; no I/O, no clock.
// Events are dispatched on the payload's "type" (the SSE event name is the
// fallback); unknown types are ignored.
//
// What it implements:
// - Start at response.created (response id and model), or before the first
//   other event if that never came; an error before anything else is a
//   lone Error.
// - Text from response.output_text.delta and response.refusal.delta, one
//   part per (item_id, content_index); reasoning from
//   response.reasoning_summary_text.delta and response.reasoning_text.delta,
//   one part per reasoning item (a "\n\n" delta separates its summary
//   parts). Text and reasoning parts share one ordinal, in order of first
//   appearance. A reasoning item ends with ReasoningEnd at its
//   response.output_item.done, carrying OpaqueBlob{"openai-responses",
//   "reasoning_item", item id, encrypted_content} when the item has
//   encrypted content (the copy in output_item.added may be incomplete and
//   is never used).
// - Tool calls keyed by item id (never confused with call_id, the id the
//   conversation uses): ToolCallStart at output_item.added (call_id, name),
//   ToolCallDelta per arguments fragment. The "arguments" of
//   function_call_arguments.done / output_item.done is authoritative: a
//   missing tail is emitted as one more delta. Calls are closed when the
//   response ends: ToolCallEnd, then Usage, then Finish.
// - Terminal events: response.completed (and the alias response.done) ->
//   kToolCalls when a call is complete, kMalformedToolCall when calls exist
//   but none is complete, kContentFilter after refusal text, else kStop
//   (raw "completed"); response.incomplete -> kLength for
//   max_output_tokens, kContentFilter for content_filter, else kUnknown
//   (raw: the incomplete reason), with every call incomplete;
//   response.failed and the "error" event -> one ErrorEvent (an error event
//   followed by response.failed is one failure). Items of the final
//   response.output that the stream did not deliver (or delivered only in
//   part) are completed from it, so missing *.done events are harmless.
//   Nothing after a terminal event is decoded.
// - A call is complete only when the response completed, it has a name and
//   its arguments parse as a JSON object; an incomplete call is never
//   executed.
// - Finish(): EOF before a terminal event is a retryable kPrematureEof with
//   no ToolCallEnd for open calls.
// - DecodeNonStreamed(): a whole response object (a server that ignored
//   stream:true) gives the same events.
//
// Thread-compatible: one decoder per response.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "daemon/events/usage.h"
#include "daemon/providers/decoder_base.h"
#include "daemon/providers/provider_event.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers::openai_responses {

class StreamDecoder : public DecoderBase {
 public:
  StreamDecoder() = default;

  // VendorDecoder. Only a terminal event (response.completed, .incomplete,
  // .failed, error) completes the stream; Finish() before one appends
  // kPrematureEof.
  void Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) override;
  void Finish(std::vector<ProviderEvent>* out) override;
  void DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) override;

 private:
  struct CallSlot {
    int call_index = 0;
    std::string call_id;
    std::string name;
    std::string arguments;
    bool started = false;          // ToolCallStart emitted
    bool final_arguments = false;  // the authoritative value arrived
  };
  struct TextPart {
    int part_index = 0;
    std::string text;
  };
  struct ReasoningPart {
    int part_index = 0;
    int64_t sub_index = 0;  // summary_index / content_index of the last delta
    bool has_text = false;
    bool ended = false;  // ReasoningEnd emitted
  };

  void DecodeEvent(std::string_view type, const Json& event, std::vector<ProviderEvent>* out);
  void OnItemAdded(const std::string& key, const Json& item, std::vector<ProviderEvent>* out);
  void OnItemDone(const std::string& key, const Json& item, std::vector<ProviderEvent>* out);
  void OnTerminal(std::string_view type, const Json& response, std::vector<ProviderEvent>* out);
  void OnFailed(const Json& response, std::vector<ProviderEvent>* out);
  void EmitText(const std::string& key, std::string_view text, std::vector<ProviderEvent>* out);
  void CompleteText(const std::string& key, std::string_view final_text,
                    std::vector<ProviderEvent>* out);
  void EmitReasoning(const std::string& item_key, int64_t sub_index, std::string_view text,
                     std::vector<ProviderEvent>* out);
  ReasoningPart& ReasoningPartFor(const std::string& item_key);
  // The call of item `item_key`, opened when new; null when a new one would
  // be one call too many (the response then ended with an error).
  CallSlot* CallFor(const std::string& item_key, std::vector<ProviderEvent>* out);
  // Sets the wire call id of a call that has none yet.
  void SetCallId(CallSlot& slot, std::string_view call_id);
  void StartCall(CallSlot& slot, std::vector<ProviderEvent>* out);
  void AppendArguments(CallSlot& slot, std::string_view fragment, std::vector<ProviderEvent>* out);
  void SetFinalArguments(CallSlot& slot, std::string_view arguments,
                         std::vector<ProviderEvent>* out);
  void ReadResponseIdentity(const Json& response);
  // Usage comes with the terminal response (completed or failed): final.
  std::optional<events::Usage> FinalUsageSoFar() const override { return usage_; }

  bool refusal_seen_ = false;
  int next_part_index_ = 0;

  std::map<std::string, TextPart> text_parts_;            // "<item>/<content_index>"
  std::map<std::string, ReasoningPart> reasoning_parts_;  // item key
  std::vector<CallSlot> calls_;                           // in order of first appearance
  std::map<std::string, size_t> call_by_item_;            // item key -> calls_ position
  std::optional<events::Usage> usage_;
};

}  // namespace raw::providers::openai_responses
