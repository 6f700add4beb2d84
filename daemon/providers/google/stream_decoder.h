// StreamDecoder: the pure per-frame decoder of a Gemini streamGenerateContent
// stream (alt=sse). SSE frame in, zero or more neutral ProviderEvents out; no
// I/O, no clock. Each frame's data is one GenerateContentResponse.
//
// What it implements:
// - Start (responseId, modelVersion) before any other event except a lone
//   Error.
// - Parts of candidates[0].content: text -> TextDelta; text with
//   "thought": true -> ReasoningDelta. Text and reasoning share one part
//   ordinal that advances whenever the stream switches between them; a
//   reasoning part ends with ReasoningEnd.
// - thoughtSignature (on any part) -> an OpaqueBlob {provider "google",
//   kind "thought_signature", id = its anchor (thought_signature.h)}. On a
//   thought part it rides on that part's ReasoningEnd; on a text or
//   functionCall part it is a ReasoningEnd of its own (a reasoning part with
//   no visible text, since the signature is encrypted reasoning state).
// - functionCall parts arrive whole: ToolCallStart and one ToolCallDelta
//   with the serialized args (key order kept) at once; ToolCallEnd for every
//   call when the stream completes. The call id is functionCall.id when the
//   provider sent one, else SyntheticCallId(responseId, position)
//   (call_id.h), so decoding the same stream again gives the same ids.
//   A call is complete only when it has a name, its args are a JSON object
//   (or absent: "{}") and the finishReason is STOP.
// - Finish: STOP with a complete call -> kToolCalls, with only incomplete
//   calls -> kMalformedToolCall, else kStop; MAX_TOKENS -> kLength; SAFETY,
//   RECITATION, LANGUAGE, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_*,
//   NO_IMAGE and promptFeedback.blockReason -> kContentFilter;
//   MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS ->
//   kMalformedToolCall; anything else -> kUnknown (raw_reason keeps it).
// - Usage: the last usageMetadata, normalised by NormalizeGeminiUsage,
//   just before Finish. Before an Error only what is certain is reported
//   (promptTokenCount; the output counts of an unfinished stream are
//   partial, so they stay unknown).
// - There is no terminator: Finish() (EOF) after a chunk with a
//   finishReason (or a blocked prompt) completes the stream; EOF without one
//   is a retryable kPrematureEof and open calls get no ToolCallEnd.
// - A chunk with "error" ends the stream with an ErrorEvent
//   (error_classifier.h); nothing after a terminal event is decoded.
// - DecodeNonStreamed(): a whole JSON body (one response or an array of
//   them, as the API sends without alt=sse) gives the same events.
//
// Thread-compatible: one decoder per response.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "daemon/events/usage.h"
#include "daemon/providers/decoder_base.h"
#include "daemon/providers/provider_event.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers::google {

class StreamDecoder : public DecoderBase {
 public:
  StreamDecoder() = default;

  // VendorDecoder. Gemini sends no terminator: Finish() completes the answer
  // when a finishReason was seen, else it ends with kPrematureEof.
  void Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) override;
  void Finish(std::vector<ProviderEvent>* out) override;
  void DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) override;

  // A finishReason (or blockReason) arrived: the answer is complete.
  bool finish_seen() const { return finish_reason_.has_value(); }
  bool answer_complete() const override { return finish_seen(); }

 private:
  struct Call {
    int call_index = 0;
    std::string id;
    std::string name;
    std::string arguments;
    bool well_formed = false;  // has a name and object args
  };

  void DecodeDocument(const OrderedJson& doc, std::vector<ProviderEvent>* out);
  void DecodeChunk(const OrderedJson& chunk, std::vector<ProviderEvent>* out);
  void DecodePart(const OrderedJson& part, std::vector<ProviderEvent>* out);
  void DecodeCall(const OrderedJson& function_call, const std::string& signature,
                  std::vector<ProviderEvent>* out);
  void EmitText(std::string_view text, std::vector<ProviderEvent>* out);
  void EmitReasoning(std::string_view text, std::vector<ProviderEvent>* out);
  void EmitSignature(std::string anchor, const std::string& signature,
                     std::vector<ProviderEvent>* out);
  void EndReasoningPart(std::vector<ProviderEvent>* out);
  void CompleteStream(std::vector<ProviderEvent>* out);
  void MalformedChunk(std::string_view detail, std::vector<ProviderEvent>* out);
  // Only the prompt count of an unfinished response is final.
  std::optional<events::Usage> FinalUsageSoFar() const override;

  enum class PartKind { kNone, kText, kReasoning };
  PartKind part_kind_ = PartKind::kNone;
  int part_index_ = -1;
  std::optional<events::OpaqueBlob> reasoning_opaque_;  // of the open reasoning part

  std::vector<Call> calls_;
  std::optional<std::string> finish_reason_;
  bool prompt_blocked_ = false;
  std::optional<OrderedJson> usage_;  // the last usageMetadata
};

// Normalises a usageMetadata object. Proto3 JSON
// leaves zero counts out, so once promptTokenCount is present a missing
// cachedContentTokenCount, thoughtsTokenCount or candidatesTokenCount is 0
// (inferred); without promptTokenCount they stay unknown. output_tokens =
// candidates + thoughts; cache_write_tokens is always unknown (Gemini does
// not report cache writes).
events::Usage NormalizeGeminiUsage(const OrderedJson& usage);

}  // namespace raw::providers::google
