// Fuzz target: arbitrary bytes as a Chat Completions response body, through
// SseDecoder into openai_chat::StreamDecoder and its non-streamed path (see
// provider_fuzz_driver.h for what is checked).
#include <cstddef>
#include <cstdint>

#include "daemon/providers/openai_chat/stream_decoder.h"
#include "tests/fuzz/provider_fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raw::providers::fuzz::FuzzStreamDecoder(
      data, size, [] { return raw::providers::openai_chat::StreamDecoder(); });
  return 0;
}
