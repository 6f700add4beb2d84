// Fuzz target: arbitrary bytes as a Anthropic Messages response body, through
// SseDecoder into anthropic::StreamDecoder and its non-streamed path (see
// provider_fuzz_driver.h for what is checked).
#include <cstddef>
#include <cstdint>

#include "daemon/providers/anthropic/stream_decoder.h"
#include "tests/fuzz/provider_fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raw::providers::fuzz::FuzzStreamDecoder(
      data, size, [] { return raw::providers::anthropic::StreamDecoder(); });
  return 0;
}
