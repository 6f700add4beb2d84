// Test support: the Anthropic SSE fixtures of tests/fixtures/sse/anthropic/
// and a whole-stream decode helper.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/sse/sse_decoder.h"
#include "gtest/gtest.h"

namespace raw::providers::anthropic::testing {

inline std::string ReadFixture(const std::string& name) {
  std::string path = std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/anthropic/" + name + ".sse";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decodes `chunks` as one response body that then ended (EOF).
// `sse_pending` receives whether a half-read event was discarded.
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

inline std::vector<ProviderEvent> DecodeBody(const std::string& body) {
  return DecodeChunks({body});
}

}  // namespace raw::providers::anthropic::testing
