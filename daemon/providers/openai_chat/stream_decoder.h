// StreamDecoder: the pure per-frame decoder of an OpenAI Chat Completions
// stream (and of the compatible servers: DeepSeek, Ollama, llama-server).
// SSE frame in, zero or more neutral ProviderEvents out; no I/O, no clock.
//
// What it implements:
// - Start before any other event except a lone Error.
// - Text from delta.content and delta.refusal; reasoning from
//   delta.reasoning_content or delta.reasoning. Text and reasoning share one
//   part ordinal that advances whenever the stream switches between them; a
//   reasoning part ends with ReasoningEnd, which carries no OpaqueBlob: the
//   reasoning deltas are the only copy kept, and the request builder sends
//   reasoning_content back from the message's reasoning text.
// - Tool calls accumulated in slots keyed by tool_calls[].index, else by id,
//   else the most recent slot; call ids missing from the wire are
//   synthesised. Calls are closed at the end of the stream: ToolCallEnd,
//   then Usage (the last non-null usage object), then Finish.
// - A call is complete only when its arguments parse as a JSON object and
//   the finish_reason is stop, tool_calls or function_call (or absent before
//   [DONE]); any other reason (length, content_filter, ...) leaves every
//   call incomplete, so an incomplete call is never executed.
// - Finish mapping: stop/tool_calls with a complete call -> kToolCalls, with
//   only incomplete calls -> kMalformedToolCall, after refusal text ->
//   kContentFilter, else kStop; length -> kLength; content_filter ->
//   kContentFilter; anything else -> kUnknown (raw_reason keeps the wire
//   value). DeepSeek's insufficient_system_resource is a retryable server
//   error, not a finish.
// - Errors: a chunk with a top-level "error", or an SSE "error" event, ends
//   the stream with ErrorEvent; nothing after a terminal event is decoded.
// - Finish(): EOF after a finish_reason completes the stream; EOF without
//   one is a retryable kPrematureEof with no ToolCallEnd for open calls.
// - DecodeNonStreamed(): a whole chat.completion JSON document (a server
//   that ignored stream:true) gives the same events.
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

namespace raw::providers::openai_chat {

class StreamDecoder : public DecoderBase {
 public:
  // VendorDecoder. Finish() completes the answer when a finish_reason was
  // seen, else it ends with kPrematureEof.
  void Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) override;
  void Finish(std::vector<ProviderEvent>* out) override;
  void DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) override;
  bool answer_complete() const override { return finish_seen(); }

  // A finish_reason arrived (the content of the answer is complete).
  bool finish_seen() const { return finish_reason_.has_value(); }

 private:
  struct CallSlot {
    int call_index = 0;
    std::string id;
    std::string name;
    std::string arguments;
    bool started = false;  // ToolCallStart emitted
  };

  void DecodeChunk(const Json& chunk, std::vector<ProviderEvent>* out);
  void DecodeDelta(const Json& delta, std::vector<ProviderEvent>* out);
  void DecodeToolCall(const Json& fragment, std::vector<ProviderEvent>* out);
  void EmitText(std::string_view text, std::vector<ProviderEvent>* out);
  void EmitReasoning(std::string_view text, std::vector<ProviderEvent>* out);
  void EndReasoningPart(std::vector<ProviderEvent>* out);
  void StartCall(CallSlot& slot, std::vector<ProviderEvent>* out);
  void CompleteStream(std::vector<ProviderEvent>* out);
  // The slot `fragment` continues or opens; null when a new one would be
  // one call too many (the response then ended with an error).
  CallSlot* SlotFor(const Json& fragment, std::vector<ProviderEvent>* out);
  // Chat Completions reports usage once, in the final chunk: whatever came is final.
  std::optional<events::Usage> FinalUsageSoFar() const override { return usage_; }

  enum class PartKind { kNone, kText, kReasoning };
  PartKind part_kind_ = PartKind::kNone;
  int part_index_ = -1;
  bool refusal_seen_ = false;

  std::vector<CallSlot> calls_;          // in order of first appearance
  std::map<int64_t, size_t> by_index_;   // wire index -> calls_ position
  std::map<std::string, size_t> by_id_;  // wire id -> calls_ position

  std::optional<std::string> finish_reason_;
  std::optional<events::Usage> usage_;
};

// Normalises a Chat Completions "usage" object (OpenAI, DeepSeek, Ollama,
// llama-server variants). A field the server did not send stays unknown.
events::Usage NormalizeChatUsage(const Json& usage);

}  // namespace raw::providers::openai_chat
