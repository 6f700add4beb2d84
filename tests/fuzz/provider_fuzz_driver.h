// The shared body of the provider fuzz targets: arbitrary bytes go through
// SseDecoder (cut in two at a point derived from the input) into a vendor
// StreamDecoder, then end of stream; the same bytes are also given to the
// decoder's non-streamed entry point. Checks the contract every decoder
// declares: after Finish() the stream is done, and exactly one terminal
// event (Finish or Error) was produced, as the last event.
//
// Header-only, used by one fuzz target per process; not thread-safe (each
// call owns its decoders).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <variant>
#include <vector>

#include "daemon/providers/provider_event.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers::fuzz {

// Where to cut the input: derived from its first byte, anywhere from 0 to
// the whole input.
inline size_t SplitPoint(std::string_view bytes) {
  if (bytes.empty()) return 0;
  return static_cast<unsigned char>(bytes[0]) * (bytes.size() + 1) / 256;
}

inline bool IsTerminal(const ProviderEvent& event) {
  return std::holds_alternative<FinishEvent>(event) || std::holds_alternative<ErrorEvent>(event);
}

// Aborts (a crash libFuzzer reports) unless `events` end with their only
// terminal event.
inline void CheckTerminal(const std::vector<ProviderEvent>& events, const char* what) {
  size_t terminals = 0;
  for (const ProviderEvent& event : events) terminals += IsTerminal(event) ? 1 : 0;
  if (terminals != 1 || !IsTerminal(events.back())) {
    std::fprintf(stderr, "%s: %zu terminal events, last one terminal: %d\n", what, terminals,
                 !events.empty() && IsTerminal(events.back()));
    std::abort();
  }
}

// `make_decoder` returns a fresh vendor StreamDecoder.
template <typename MakeDecoder>
void FuzzStreamDecoder(const uint8_t* data, size_t size, MakeDecoder make_decoder) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t split = SplitPoint(bytes);

  auto streamed = make_decoder();
  std::vector<ProviderEvent> events;
  http::SseDecoder sse;
  auto sink = [&](const http::SseFrame& frame) { streamed.Decode(frame, &events); };
  sse.Feed(bytes.substr(0, split), sink);
  sse.Feed(bytes.substr(split), sink);
  sse.Finish();
  streamed.Finish(&events);
  if (!streamed.done()) {
    std::fprintf(stderr, "streamed: not done after Finish()\n");
    std::abort();
  }
  CheckTerminal(events, "streamed");

  auto whole = make_decoder();
  std::vector<ProviderEvent> whole_events;
  whole.DecodeNonStreamed(bytes, &whole_events);
  CheckTerminal(whole_events, "non-streamed");
}

}  // namespace raw::providers::fuzz
