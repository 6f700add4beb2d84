// Fuzz target: arbitrary bytes as a Responses response body, through
// SseDecoder into openai_responses::StreamDecoder and its non-streamed path (see
// provider_fuzz_driver.h for what is checked).
#include <cstddef>
#include <cstdint>

#include "daemon/providers/openai_responses/stream_decoder.h"
#include "tests/fuzz/provider_fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raw::providers::fuzz::FuzzStreamDecoder(
      data, size, [] { return raw::providers::openai_responses::StreamDecoder(); });
  return 0;
}
