// Test support for the Responses adapter: reading the SSE fixtures of
// tests/fixtures/sse/responses/ and decoding a body as it would arrive in
// chunks.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/providers/openai_responses/stream_decoder.h"
#include "daemon/providers/sse/sse_decoder.h"
#include "gtest/gtest.h"

namespace raw::providers::openai_responses::testing {

inline std::string ReadFixture(const std::string& name) {
  std::string path =
      std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/responses/" + name + ".sse";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decodes `chunks` as one response body that then ended (EOF). Sets
// `*sse_pending` to whether a half-read event was dropped at the end.
inline std::vector<ProviderEvent> DecodeChunks(const std::vector<std::string>& chunks,
                                               bool* sse_pending = nullptr) {
  sse::SseDecoder sse;
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  for (const std::string& chunk : chunks) {
    sse.Feed(chunk, [&](const sse::SseFrame& frame) { decoder.Decode(frame, &events); });
  }
  bool pending = sse.Finish();
  if (sse_pending != nullptr) *sse_pending = pending;
  decoder.Finish(&events);
  return events;
}

// One SSE event of the Responses wire form: "event: <type>" and its data.
inline std::string SseEvent(const std::string& type, const std::string& data) {
  return "event: " + type + "\ndata: " + data + "\n\n";
}

}  // namespace raw::providers::openai_responses::testing
