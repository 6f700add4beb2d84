// The Chat Completions stream decoder on the recorded-shape fixtures of
// tests/fixtures/sse/chat/, each fed whole, split at every byte boundary,
// byte by byte and in random chunks, with "\n", "\r\n" and "\r" line ends.
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/openai_chat/stream_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/decode_harness.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::providers::openai_chat {
namespace {

using ::raw::providers::testing::ExpectStreamInvariants;
using ::testing::ElementsAre;

std::string ReadFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("chat", name);
}

// Decodes `chunks` as one response body that then ended (EOF).
std::vector<ProviderEvent> DecodeChunks(const std::vector<std::string>& chunks,
                                        bool* sse_pending = nullptr) {
  StreamDecoder decoder;
  return testing::DecodeSse(decoder, chunks, sse_pending);
}

// Checks that every way of cutting `body` gives the events of the whole.
void ExpectSplitInvariant(const std::string& body, const std::vector<std::string>& expected) {
  testing::ExpectSplitInvariant([](const auto& chunks) { return DecodeChunks(chunks); }, body,
                                expected);
}

void ExpectFixture(const std::string& name, const std::vector<std::string>& expected) {
  std::string body = ReadFixture(name);
  ASSERT_FALSE(body.empty());
  ExpectStreamInvariants(DecodeChunks({body}));
  ExpectSplitInvariant(body, expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r\n"}}), expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r"}}), expected);
}

TEST(OpenAiChatFixturesTest, Text) {
  ExpectFixture("01-text", {
                               "start chatcmpl-T1 gpt-test",
                               "text 0 [Hello]",
                               "text 0 [, world.]",
                               "usage in=12 out=4 cache_read=0 cache_write=? reasoning=0",
                               "finish stop raw=stop",
                           });
}

TEST(OpenAiChatFixturesTest, ParallelTools) {
  ExpectFixture("02-parallel-tools",
                {
                    "start chatcmpl-T1 gpt-test",
                    "call_start 0 call_A read_file",
                    "call_delta 0 [{\"pa]",
                    "call_delta 0 [th\":\"a.txt\"}]",
                    "call_start 1 call_B read_file",
                    "call_delta 1 [{\"path\": ]",
                    "call_delta 1 [\"b.txt\"}]",
                    "call_end 0 call_A read_file [{\"path\":\"a.txt\"}] complete",
                    "call_end 1 call_B read_file [{\"path\": \"b.txt\"}] complete",
                    "usage in=3100 out=58 cache_read=2944 cache_write=128 reasoning=0",
                    "finish tool_calls raw=tool_calls",
                });
}

TEST(OpenAiChatFixturesTest, DeepSeekReasoningAndUsageOnFinishChunk) {
  ExpectFixture("03-usage-cache-deepseek",
                {
                    "start 0f3a9c1e-5b7d-4e2a-9c61-1d2e3f4a5b6c deepseek-reasoner",
                    "reasoning 0 [Check the]",
                    "reasoning 0 [ file.]",
                    "reasoning_end 0",
                    "text 1 [Done.]",
                    "usage in=339 out=83 cache_read=320 cache_write=? reasoning=39",
                    "finish stop raw=stop",
                });
}

TEST(OpenAiChatFixturesTest, Length) {
  ExpectFixture("04-length", {
                                 "start chatcmpl-T1 gpt-test",
                                 "text 0 [The answer is]",
                                 "text 0 [ forty]",
                                 "usage in=20 out=2 cache_read=0 cache_write=? reasoning=0",
                                 "finish length raw=length",
                             });
}

TEST(OpenAiChatFixturesTest, MidstreamErrorIsNotTurnedIntoAFinishByDone) {
  ExpectFixture("05-midstream-error",
                {
                    "start chatcmpl-T1 gpt-test",
                    "text 0 [Partial]",
                    "error server retryable after_output http=0 type=server_error code= "
                    "retry_after=?",
                });
  std::vector<ProviderEvent> events = DecodeChunks({ReadFixture("05-midstream-error")});
  const auto& error = std::get<ErrorEvent>(events.back());
  EXPECT_EQ(error.message, "The server had an error while processing your request.");
}

TEST(OpenAiChatFixturesTest, CutoffIsPrematureEofWithoutToolCallEnd) {
  std::vector<std::string> expected = {
      "start chatcmpl-T1 gpt-test",
      "text 0 [Let me ]",
      "call_start 0 call_Z write_file",
      "call_delta 0 [{\"path\":\"x]",
      "error premature_eof retryable after_output http=0 type= code= retry_after=?",
  };
  ExpectFixture("06-cutoff", expected);
  bool pending = true;
  DecodeChunks({ReadFixture("06-cutoff")}, &pending);
  EXPECT_FALSE(pending);

  // Variant: a half-sent event before the close is discarded.
  std::string variant = ReadFixture("06-cutoff") + "data: {\"id\":\"chatcmpl-T1\",\"obj";
  ExpectSplitInvariant(variant, expected);
  DecodeChunks({variant}, &pending);
  EXPECT_TRUE(pending);
}

}  // namespace
}  // namespace raw::providers::openai_chat
