// StreamDecoder: the pure per-frame decoder of an Anthropic Messages stream.
// SSE frame in, zero or more neutral ProviderEvents out; no I/O, no clock.
//
// What it implements:
// - Events are dispatched on the JSON "type", else the SSE event name;
//   ping and unknown types are ignored. message_start gives Start (message
//   id and model); nothing but a lone Error comes before Start.
// - Content blocks are tracked by their wire "index". Text and thinking
//   blocks each open a new part (one ordinal shared by text and reasoning):
//   text_delta -> TextDelta, thinking_delta -> ReasoningDelta. A thinking
//   block ends with ReasoningEnd carrying OpaqueBlob{"anthropic",
//   "thinking_signature", id = the byte length of the block's thinking
//   text, data = the signature} (no blob when no signature arrived); a
//   redacted_thinking block ends with ReasoningEnd carrying
//   OpaqueBlob{"anthropic", "redacted_thinking", "", data}. The length in
//   `id` lets the request builder cut each block's text back out of the
//   turn's concatenated reasoning when one answer holds several thinking
//   blocks.
// - tool_use blocks: ToolCallStart at content_block_start (call_index in
//   order of appearance, id toolu_..., name), one ToolCallDelta per
//   non-empty input_json_delta fragment; a block that closes without one
//   gets the arguments "{}" (as one delta at its content_block_stop).
//   ToolCallEnd for every call comes at message_stop, once the stop reason
//   is known: complete only when the block was closed, the text parses as
//   a JSON object and the stop reason lets calls run (tool_use, end_turn,
//   stop_sequence, or none). So a call cut
//   off by max_tokens is never executed, and a stream that fails after a
//   closed block never completes its calls.
// - Usage per usage_overlay.h, emitted just before Finish (and before an
//   Error only once a message_delta reported final counts).
// - Finish at message_stop: kToolCalls with a complete call; else
//   end_turn/stop_sequence -> kStop, tool_use -> kMalformedToolCall,
//   max_tokens -> kLength, model_context_window_exceeded -> kContextWindow,
//   refusal -> kContentFilter, pause_turn -> kPauseTurn, others -> kUnknown
//   (raw_reason keeps the wire value).
// - An "error" event ends the stream with the classified ErrorEvent; a
//   frame that is not JSON ends it with a retryable server error. Nothing
//   after a terminal event is decoded.
// - Finish(): EOF before message_stop is a retryable kPrematureEof, with no
//   ToolCallEnd for any call.
// - DecodeNonStreamed(): a whole Message JSON document (a gateway that
//   ignored stream:true) gives the same events.
//
// Thread-compatible: one decoder per response.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "daemon/providers/anthropic/usage_overlay.h"
#include "daemon/providers/decoder_base.h"
#include "daemon/providers/provider_event.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers::anthropic {

// The label of every OpaqueBlob this adapter produces and replays.
inline constexpr char kOpaqueProvider[] = "anthropic";
inline constexpr char kThinkingSignatureKind[] = "thinking_signature";
inline constexpr char kRedactedThinkingKind[] = "redacted_thinking";

class StreamDecoder : public DecoderBase {
 public:
  StreamDecoder() = default;

  // VendorDecoder. Only message_stop (or an error event) completes the
  // stream; Finish() before it appends kPrematureEof. DecodeNonStreamed()
  // takes a whole Message object.
  void Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) override;
  void Finish(std::vector<ProviderEvent>* out) override;
  void DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) override;

 private:
  static constexpr size_t kOpenBlockOverheadBytes = 64;
  enum class BlockKind { kText, kThinking, kRedactedThinking, kToolUse, kOther };
  struct Block {
    BlockKind kind = BlockKind::kOther;
    int part_index = -1;  // text and thinking blocks, once opened
    int call = -1;        // tool_use: position in calls_
    size_t thinking_bytes = 0;  // the thinking text's length, for its signature
    std::string signature;
    std::string redacted_data;
    // Kept until the block stops (the decoder Holds them meanwhile), with a
    // fixed cost for the open block itself, so that a stream which opens
    // block after block and never stops them is held to the response cap.
    size_t held() const {
      return kOpenBlockOverheadBytes + signature.size() + redacted_data.size();
    }
  };
  struct Call {
    std::string id;
    std::string name;
    std::string arguments;
    bool closed = false;  // content_block_stop seen
  };

  void DecodeEvent(const Json& event, std::string_view type, std::vector<ProviderEvent>* out);
  void OnMessageStart(const Json& event, std::vector<ProviderEvent>* out);
  void OnBlockStart(const Json& event, std::vector<ProviderEvent>* out);
  void OnBlockDelta(const Json& event, std::vector<ProviderEvent>* out);
  void OnBlockStop(const Json& event, std::vector<ProviderEvent>* out);
  void OnMessageDelta(const Json& event);
  void EmitText(Block& block, std::string_view text, std::vector<ProviderEvent>* out);
  void EmitReasoning(Block& block, std::string_view text, std::vector<ProviderEvent>* out);
  void CompleteStream(std::vector<ProviderEvent>* out);
  // Only counts message_delta has made final (UsageOverlay::final).
  std::optional<events::Usage> FinalUsageSoFar() const override;

  int next_part_ = 0;
  std::map<int64_t, Block> blocks_;  // by wire index
  std::vector<Call> calls_;          // by call_index
  std::optional<std::string> stop_reason_;
  UsageOverlay usage_;
};

}  // namespace raw::providers::anthropic
