// Test support for the Responses adapter: reading the SSE fixtures of
// tests/fixtures/sse/responses/ and decoding a body as it would arrive in
// chunks.
#pragma once

#include <string>
#include <vector>

#include "daemon/providers/openai_responses/stream_decoder.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/decode_harness.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::providers::openai_responses::testing {

inline std::string ReadFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("responses", name);
}

// Decodes `chunks` as one response body that then ended (EOF). Sets
// `*sse_pending` to whether a half-read event was dropped at the end.
inline std::vector<ProviderEvent> DecodeChunks(const std::vector<std::string>& chunks,
                                               bool* sse_pending = nullptr) {
  StreamDecoder decoder;
  return ::raw::providers::testing::DecodeSse(decoder, chunks, sse_pending);
}

// One SSE event of the Responses wire form: "event: <type>" and its data.
inline std::string SseEvent(const std::string& type, const std::string& data) {
  return "event: " + type + "\ndata: " + data + "\n\n";
}

}  // namespace raw::providers::openai_responses::testing
