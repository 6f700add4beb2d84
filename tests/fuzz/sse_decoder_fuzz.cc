// Fuzz target: arbitrary bytes through SseDecoder. Besides not crashing or
// leaking, the decoder must not depend on how the bytes are cut: feeding
// them whole and cut at a point derived from the input (plus byte by byte
// for short inputs) gives the same frames and the same Finish() result.
// The overflow path is reached with a small event limit; there only the
// absence of crashes is checked, since when a long line is measured depends
// on where the input is cut.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "daemon/http/sse_decoder.h"
#include "tests/fuzz/provider_fuzz_driver.h"

namespace {

using raw::http::SseDecoder;
using raw::http::SseFrame;

struct Result {
  std::vector<SseFrame> frames;
  bool cut_off = false;
  bool overflowed = false;
};

Result Decode(const std::vector<std::string_view>& chunks, size_t max_event_bytes) {
  SseDecoder decoder(max_event_bytes);
  Result result;
  for (std::string_view chunk : chunks) {
    decoder.Feed(chunk, [&](const SseFrame& frame) { result.frames.push_back(frame); });
  }
  result.overflowed = decoder.overflowed();
  result.cut_off = decoder.Finish();
  return result;
}

void ExpectSame(const Result& expected, const Result& actual, const char* how) {
  if (expected.frames != actual.frames || expected.cut_off != actual.cut_off ||
      expected.overflowed != actual.overflowed) {
    std::fprintf(stderr, "%s: %zu frames (cut off %d, overflow %d) vs %zu whole (%d, %d)\n", how,
                 actual.frames.size(), actual.cut_off, actual.overflowed, expected.frames.size(),
                 expected.cut_off, expected.overflowed);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t split = raw::providers::fuzz::SplitPoint(bytes);
  const std::vector<std::string_view> cut = {bytes.substr(0, split), bytes.substr(split)};
  std::vector<std::string_view> bytewise;
  if (size <= 512) {
    for (size_t i = 0; i < size; ++i) bytewise.push_back(bytes.substr(i, 1));
  }

  const Result whole = Decode({bytes}, SseDecoder::kDefaultMaxEventBytes);
  ExpectSame(whole, Decode(cut, SseDecoder::kDefaultMaxEventBytes), "split");
  if (!bytewise.empty()) {
    ExpectSame(whole, Decode(bytewise, SseDecoder::kDefaultMaxEventBytes), "byte by byte");
  }

  constexpr size_t kSmallLimit = 64;
  Decode({bytes}, kSmallLimit);
  Decode(cut, kSmallLimit);
  if (!bytewise.empty()) Decode(bytewise, kSmallLimit);
  return 0;
}
