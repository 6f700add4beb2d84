// SseDecoder: incremental decoder of a Server-Sent Events byte stream
// (the WHATWG "event stream" format) into frames. Vendor-neutral: it knows
// nothing about JSON or providers.
//
// Bytes may be split anywhere between Feed() calls: lines may end in "\n",
// "\r\n" or a lone "\r" (a "\r" at the end of a chunk is remembered so that a
// "\n" starting the next chunk is not taken for a second line end). Lines
// starting with ':' are comments. "field:value" drops one optional space after
// the colon; a line without a colon is a field with an empty value. Several
// "data" lines are joined with "\n". A blank line dispatches the event; an
// event without any "data" line is not dispatched (as the standard says).
// Unknown fields are ignored. The decoder works on bytes only and never looks
// inside UTF-8 sequences, so a character split across chunks is harmless.
//
// Ownership: frames are values owned by the caller. Thread-compatible: one
// decoder per stream, used from one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace raw::http {

struct SseFrame {
  std::string event;  // the "event" field; "" when the event had none
  std::string data;   // "data" lines joined with "\n"
  std::string id;     // the last event id seen so far in the stream (persists)
  std::optional<int64_t> retry;  // a valid "retry" field of this event, in ms

  bool operator==(const SseFrame&) const = default;
};

class SseDecoder {
 public:
  using FrameSink = absl::FunctionRef<void(const SseFrame&)>;

  // Bounds the memory one event may take (its unterminated line plus its
  // data so far); a stream that exceeds it is broken, see overflowed().
  static constexpr size_t kDefaultMaxEventBytes = 32 * 1024 * 1024;

  explicit SseDecoder(size_t max_event_bytes = kDefaultMaxEventBytes)
      : max_event_bytes_(max_event_bytes) {}
  SseDecoder(const SseDecoder&) = delete;
  SseDecoder& operator=(const SseDecoder&) = delete;

  // Consumes `bytes`, calling `sink` for every event completed by them, in
  // order. The frame reference is valid only during the call.
  void Feed(std::string_view bytes, FrameSink sink);
  // Convenience form that returns the completed frames.
  std::vector<SseFrame> Feed(std::string_view bytes);

  // End of input. A half-read event (no blank line yet, or an unterminated
  // line) is discarded; returns true when there was one, which for a stream
  // protocol means the stream was cut off. Resets the decoder for reuse.
  bool Finish();

  // An event grew past the limit; the decoder then ignores all further
  // input until Finish().
  bool overflowed() const { return overflowed_; }

 private:
  void ProcessLine(std::string_view line, FrameSink sink);
  void Dispatch(FrameSink sink);
  void Overflow();

  size_t max_event_bytes_;
  bool overflowed_ = false;
  std::string partial_line_;   // bytes of an unterminated line
  bool skip_lf_ = false;       // the previous byte was a '\r' that ended a line
  bool at_stream_start_ = true;  // for dropping a leading UTF-8 BOM
  bool pending_fields_ = false;  // a field line was read since the last dispatch
  bool has_data_ = false;
  SseFrame current_;
  std::string last_event_id_;
};

}  // namespace raw::http
