// The Gemini stream decoder on the fixtures of tests/fixtures/sse/gemini/,
// each fed whole, split at every byte boundary, byte by byte and in random
// chunks, with "\n", "\r\n" and "\r" line ends; and every truncation of each
// fixture, which must end in kPrematureEof without a completed call.
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/google/stream_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/decode_harness.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::providers::google {
namespace {

using ::raw::providers::testing::ExpectStreamInvariants;

std::string ReadFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("gemini", name);
}

// Decodes `chunks` as one response body that then ended (EOF).
std::vector<ProviderEvent> Decode(const std::vector<std::string>& chunks) {
  StreamDecoder decoder;
  return testing::DecodeSse(decoder, chunks);
}

// Checks that every way of cutting `body` gives the events of the whole.
void ExpectSplitInvariant(const std::string& body, const std::vector<std::string>& expected) {
  testing::ExpectSplitInvariant(Decode, body, expected);
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
