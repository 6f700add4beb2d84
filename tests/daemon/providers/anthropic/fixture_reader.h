// Test support: the Anthropic SSE fixtures of tests/fixtures/sse/anthropic/
// and a whole-stream decode helper.
#pragma once

#include <string>
#include <vector>

#include "daemon/providers/anthropic/stream_decoder.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/decode_harness.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::providers::anthropic::testing {

inline std::string ReadFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("anthropic", name);
}

// Decodes `chunks` as one response body that then ended (EOF).
// `sse_pending` receives whether a half-read event was discarded.
inline std::vector<ProviderEvent> DecodeChunks(const std::vector<std::string>& chunks,
                                               bool* sse_pending = nullptr) {
  StreamDecoder decoder;
  return ::raw::providers::testing::DecodeSse(decoder, chunks, sse_pending);
}

inline std::vector<ProviderEvent> DecodeBody(const std::string& body) {
  return DecodeChunks({body});
}

}  // namespace raw::providers::anthropic::testing
