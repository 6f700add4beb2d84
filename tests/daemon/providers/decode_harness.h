// Test harness for the vendor decoders fed SSE bytes directly, without
// HTTP: a whole-body decode, and the check that every way of cutting a body
// into chunks gives the same events (the decoders must not depend on where
// the network splits the bytes).
//
// Header-only (each provider test binary globs only its own directory, so
// they include this by path). Pure; thread-compatible.
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "daemon/providers/provider_event.h"
#include "daemon/http/sse_decoder.h"
#include "daemon/providers/vendor_decoder.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::testing {

// Feeds `chunks` through a fresh SseDecoder into `decoder` as one response
// body that then ended (EOF). Sets `*sse_pending` to whether a half-read
// event was dropped at the end.
inline std::vector<ProviderEvent> DecodeSse(VendorDecoder& decoder,
                                            const std::vector<std::string>& chunks,
                                            bool* sse_pending = nullptr) {
  http::SseDecoder sse;
  std::vector<ProviderEvent> events;
  for (const std::string& chunk : chunks) {
    sse.Feed(chunk, [&](const http::SseFrame& frame) { decoder.Decode(frame, &events); });
  }
  bool pending = sse.Finish();
  if (sse_pending != nullptr) *sse_pending = pending;
  decoder.Finish(&events);
  return events;
}

// Decodes the chunks of one body with a fresh decoder.
using ChunkDecoder = std::function<std::vector<ProviderEvent>(const std::vector<std::string>&)>;

// Which two-piece splits ExpectSplitInvariant tries. Splitting at every byte
// boundary is quadratic, so callers may skip it for variants of a body that
// byte-by-byte and random chunks already cut everywhere.
enum class TwoPieceCuts { kEveryByte, kNone };

// `body` decoded whole, cut in two at every byte boundary, byte by byte and
// in random chunks of 1 to 64 bytes (20 seeds) gives `expected` each time.
inline void ExpectSplitInvariant(const ChunkDecoder& decode, const std::string& body,
                                 const std::vector<std::string>& expected,
                                 TwoPieceCuts cuts = TwoPieceCuts::kEveryByte) {
  EXPECT_EQ(EventTexts(decode({body})), expected) << "whole body";
  for (size_t cut = 0; cuts == TwoPieceCuts::kEveryByte && cut <= body.size(); ++cut) {
    ASSERT_EQ(EventTexts(decode({body.substr(0, cut), body.substr(cut)})), expected)
        << "cut at byte " << cut;
  }
  std::vector<std::string> bytes;
  for (char c : body) bytes.emplace_back(1, c);
  EXPECT_EQ(EventTexts(decode(bytes)), expected) << "byte by byte";
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> size(1, 64);
    std::vector<std::string> chunks;
    for (size_t pos = 0; pos < body.size();) {
      size_t n = size(rng);
      chunks.push_back(body.substr(pos, n));
      pos += n;
    }
    ASSERT_EQ(EventTexts(decode(chunks)), expected) << "random chunks, seed " << seed;
  }
}

}  // namespace raw::providers::testing
