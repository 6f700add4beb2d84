// VendorDecoder: the vendor half of a streaming adapter, turning one API's
// response body into the neutral events of provider_event.h. Each adapter's
// StreamDecoder implements it; StreamingProvider drives it.
//
// Contract: the calls append to `out` in stream order, and the stream ends
// with exactly one terminal event (Finish or Error), after which done() is
// true and every further call is a no-op. The first tool call past
// kMaxToolCallsPerResponse ends the response with a non-retryable error.
// A decoder is used for one response. Pure (no I/O); thread-compatible.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "daemon/http/sse_decoder.h"
#include "daemon/providers/provider_event.h"

namespace raw::providers {

// The most tool calls one response may carry. A response with more ends
// with a non-retryable error (no model needs hundreds of calls at once; each
// needs its own approval and stored result).
inline constexpr int kMaxToolCallsPerResponse = 256;
// What the response byte cap counts for each tool call besides its name, id
// and arguments: the decoder's and the step's bookkeeping of it.
inline constexpr size_t kToolCallOverheadBytes = 64;

class VendorDecoder {
 public:
  virtual ~VendorDecoder() = default;

  // Decodes one SSE frame.
  virtual void Decode(const http::SseFrame& frame, std::vector<ProviderEvent>* out) = 0;

  // The body ended cleanly (EOF). Appends the terminal events if none was
  // produced yet: Finish when the answer is complete, else kPrematureEof.
  virtual void Finish(std::vector<ProviderEvent>* out) = 0;

  // Ends the stream with an error decided by the caller (transport failure,
  // cancellation); after_output is filled in here. No-op once done().
  virtual void Fail(ErrorEvent error, std::vector<ProviderEvent>* out) = 0;

  // Decodes a complete non-streamed response body (a server that ignored
  // stream:true) into the full event sequence, terminal event included.
  virtual void DecodeNonStreamed(std::string_view body, std::vector<ProviderEvent>* out) = 0;

  // A terminal event (Finish or Error) has been produced.
  virtual bool done() const = 0;

  // The answer is already whole although its stream has not ended, so a
  // transfer that fails now still finishes normally (Chat Completions after
  // finish_reason, Gemini after finishReason). False where only an explicit
  // terminator completes the answer.
  virtual bool answer_complete() const { return false; }

  // Bytes the decoder holds that no event carries yet (a call whose name has
  // not arrived: its id, arguments and kToolCallOverheadBytes; thinking state
  // of a block still open). The
  // response byte cap counts them, so that a stream which never lets them
  // out cannot grow memory past it.
  virtual size_t held_bytes() const { return 0; }
};

}  // namespace raw::providers
