// The Gemini stream decoder on the fixtures of tests/fixtures/sse/gemini/,
// each fed whole, split at every byte boundary, byte by byte and in random
// chunks, with "\n", "\r\n" and "\r" line ends; and every truncation of each
// fixture, which must end in kPrematureEof without a completed call.
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/google/stream_decoder.h"
#include "daemon/providers/sse/sse_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::google {
namespace {

using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;

std::string ReadFixture(const std::string& name) {
  std::string path = std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/gemini/" + name + ".sse";
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decodes `chunks` as one response body that then ended (EOF).
std::vector<ProviderEvent> Decode(const std::vector<std::string>& chunks) {
  sse::SseDecoder sse;
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  for (const std::string& chunk : chunks) {
    sse.Feed(chunk, [&](const sse::SseFrame& frame) { decoder.Decode(frame, &events); });
  }
  sse.Finish();
  decoder.Finish(&events);
  return events;
}

// Checks that every way of cutting `body` gives the events of the whole.
void ExpectSplitInvariant(const std::string& body, const std::vector<std::string>& expected) {
  EXPECT_EQ(EventTexts(Decode({body})), expected) << "whole body";
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    ASSERT_EQ(EventTexts(Decode({body.substr(0, cut), body.substr(cut)})), expected)
        << "cut at byte " << cut;
  }
  std::vector<std::string> bytes;
  for (char c : body) bytes.emplace_back(1, c);
  EXPECT_EQ(EventTexts(Decode(bytes)), expected) << "byte by byte";
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> size(1, 64);
    std::vector<std::string> chunks;
    for (size_t pos = 0; pos < body.size();) {
      size_t n = size(rng);
      chunks.push_back(body.substr(pos, n));
      pos += n;
    }
    ASSERT_EQ(EventTexts(Decode(chunks)), expected) << "random chunks, seed " << seed;
  }
}

// A body cut anywhere before `complete_size` bytes never finishes and never
// completes a call (the finishReason comes in the last event).
void ExpectTruncationsFail(const std::string& body, size_t complete_size) {
  for (size_t size = 0; size < complete_size; ++size) {
    std::vector<ProviderEvent> events = Decode({body.substr(0, size)});
    ExpectStreamInvariants(events);
    const auto* error = std::get_if<ErrorEvent>(&events.back());
    ASSERT_NE(error, nullptr) << "prefix of " << size << " bytes finished";
    if (error->kind == ErrorKind::kPrematureEof) {
      EXPECT_TRUE(error->retryable);
    }
    for (const ProviderEvent& event : events) {
      EXPECT_FALSE(std::holds_alternative<ToolCallEndEvent>(event)) << "prefix " << size;
    }
  }
}

void ExpectFixture(const std::string& name, const std::vector<std::string>& expected) {
  std::string body = ReadFixture(name);
  ASSERT_FALSE(body.empty());
  ExpectStreamInvariants(Decode({body}));
  ExpectSplitInvariant(body, expected);
  std::string crlf = absl::StrReplaceAll(body, {{"\n", "\r\n"}});
  ExpectSplitInvariant(crlf, expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r"}}), expected);
  ExpectTruncationsFail(body, body.size());
  // With "\r\n" line ends the last event is already whole before the final
  // "\n": a lone "\r" ends a line too.
  ExpectTruncationsFail(crlf, crlf.size() - 1);
}

TEST(GoogleFixturesTest, Text) {
  ExpectFixture("01-text", {
                               "start gT1 gemini-test",
                               "text 0 [Hello]",
                               "text 0 [, world.]",
                               "usage in=12 out=4 cache_read=0 cache_write=? reasoning=0",
                               "finish stop raw=STOP",
                           });
}

TEST(GoogleFixturesTest, ParallelToolsWithThoughtAndSignature) {
  ExpectFixture(
      "02-parallel-tools",
      {
          "start gT2 gemini-test",
          "reasoning 0 [Reading both files.]",
          "reasoning_end 0",
          "reasoning_end 1 opaque=google/thought_signature/call:gemini-gT2-0 [CiQBsig0]",
          "call_start 0 gemini-gT2-0 read_file",
          R"(call_delta 0 [{"path":"a.txt"}])",
          "call_start 1 gemini-gT2-1 read_file",
          R"(call_delta 1 [{"path":"b.txt"}])",
          R"(call_end 0 gemini-gT2-0 read_file [{"path":"a.txt"}] complete)",
          R"(call_end 1 gemini-gT2-1 read_file [{"path":"b.txt"}] complete)",
          "usage in=29 out=75 cache_read=0 cache_write=? reasoning=45",
          "finish tool_calls raw=STOP",
      });
}

TEST(GoogleFixturesTest, UsageWithCacheAndSignatureOnEmptyText) {
  ExpectFixture("03-usage-cache",
                {
                    "start gT3 gemini-test",
                    "text 0 [Using cached context.]",
                    "reasoning_end 1 opaque=google/thought_signature/text [EqsFsig3]",
                    "usage in=2100 out=58 cache_read=2048 cache_write=? reasoning=50",
                    "finish stop raw=STOP",
                });
}

TEST(GoogleFixturesTest, MaxTokens) {
  ExpectFixture("04-max-tokens", {
                                     "start gT4 gemini-test",
                                     "text 0 [The answer is]",
                                     "text 0 [ forty]",
                                     "usage in=20 out=64 cache_read=0 cache_write=? reasoning=62",
                                     "finish length raw=MAX_TOKENS",
                                 });
}

TEST(GoogleFixturesTest, MidstreamError) {
  ExpectFixture("05-midstream-error",
                {
                    "start gT5 gemini-test",
                    "text 0 [Partial]",
                    "usage in=12 out=? cache_read=? cache_write=? reasoning=?",
                    "error overloaded retryable after_output http=0 type= code=UNAVAILABLE "
                    "retry_after=?",
                });
  std::vector<ProviderEvent> events = Decode({ReadFixture("05-midstream-error")});
  EXPECT_EQ(std::get<ErrorEvent>(events.back()).message,
            "The model is overloaded. Please try again later.");
}

TEST(GoogleFixturesTest, CutoffIsPrematureEof) {
  ExpectFixture("06-cutoff",
                {
                    "start gT6 gemini-test",
                    "text 0 [Let me]",
                    "text 0 [ check]",
                    "usage in=12 out=? cache_read=? cache_write=? reasoning=?",
                    "error premature_eof retryable after_output http=0 type= code= retry_after=?",
                });
}

}  // namespace
}  // namespace raw::providers::google
