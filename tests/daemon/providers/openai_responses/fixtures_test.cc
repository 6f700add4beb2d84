// The Responses stream decoder on the fixtures of
// tests/fixtures/sse/responses/, each fed whole, split at every byte
// boundary, byte by byte and in random chunks, with "\n", "\r\n" and "\r"
// line ends: every way of cutting the bytes gives the same events.
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/daemon/providers/openai_responses/fixture_support.h"

namespace raw::providers::openai_responses {
namespace {

using ::raw::providers::openai_responses::testing::DecodeChunks;
using ::raw::providers::openai_responses::testing::ReadFixture;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::providers::testing::TwoPieceCuts;

// Every way of cutting `body` gives the events of the whole.
void ExpectSplitInvariant(const std::string& body, const std::vector<std::string>& expected,
                          TwoPieceCuts cuts = TwoPieceCuts::kEveryByte) {
  ::raw::providers::testing::ExpectSplitInvariant(
      [](const auto& chunks) { return DecodeChunks(chunks); }, body, expected, cuts);
}

void ExpectBody(const std::string& body, const std::vector<std::string>& expected) {
  ASSERT_FALSE(body.empty());
  ExpectStreamInvariants(DecodeChunks({body}));
  ExpectSplitInvariant(body, expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r\n"}}), expected,
                       TwoPieceCuts::kNone);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r"}}), expected, TwoPieceCuts::kNone);
}

TEST(OpenAiResponsesFixturesTest, Text) {
  ExpectBody(ReadFixture("01-text"),
             {
                 "start resp_T1 gpt-test",
                 "text 0 [Hello]",
                 "text 0 [, world.]",
                 "usage in=12 out=4 cache_read=0 cache_write=? reasoning=0",
                 "finish stop raw=completed",
             });
}

TEST(OpenAiResponsesFixturesTest, ParallelToolsWithEncryptedReasoning) {
  ExpectBody(ReadFixture("02-parallel-tools"),
             {
                 "start resp_T2 gpt-test",
                 // The value of output_item.done, not the partial one of .added.
                 "reasoning_end 0 opaque=openai-responses/reasoning_item/rs_T2 [gAAAAB-enc-final]",
                 "call_start 0 call_A read_file",
                 "call_delta 0 [{\"path\":]",
                 "call_delta 0 [\"a.txt\"}]",
                 "call_start 1 call_B read_file",
                 "call_delta 1 [{\"path\":\"b.txt\"}]",
                 "call_end 0 call_A read_file [{\"path\":\"a.txt\"}] complete",
                 "call_end 1 call_B read_file [{\"path\":\"b.txt\"}] complete",
                 "usage in=134 out=41 cache_read=0 cache_write=? reasoning=12",
                 "finish tool_calls raw=completed",
             });
}

TEST(OpenAiResponsesFixturesTest, ReasoningSummaryAndCacheUsage) {
  ExpectBody(ReadFixture("03-usage-cache"),
             {
                 "start resp_T3 gpt-test",
                 "reasoning 0 [**Plan**]",
                 "reasoning 0 [ read config]",
                 "reasoning_end 0 opaque=openai-responses/reasoning_item/rs_T3 [gAAAAB-enc-3]",
                 "text 1 [OK.]",
                 "usage in=2200 out=70 cache_read=1920 cache_write=256 reasoning=64",
                 "finish stop raw=completed",
             });
  std::vector<ProviderEvent> events = DecodeChunks({ReadFixture("03-usage-cache")});
  const events::Usage& usage = std::get<UsageEvent>(events[events.size() - 2]).usage;
  // Uncached input is derivable because all three terms are known.
  EXPECT_EQ(*usage.input_tokens - *usage.cache_read_tokens - *usage.cache_write_tokens, 24);
}

TEST(OpenAiResponsesFixturesTest, IncompleteAtMaxOutputTokensIsLength) {
  ExpectBody(ReadFixture("04-incomplete-max-tokens"),
             {
                 "start resp_T4 gpt-test",
                 "text 0 [The answer is]",
                 "text 0 [ forty]",
                 "usage in=20 out=16 cache_read=0 cache_write=? reasoning=12",
                 "finish length raw=max_output_tokens",
             });
}

TEST(OpenAiResponsesFixturesTest, MidstreamErrorThenFailedIsOneError) {
  std::string body = ReadFixture("05-midstream-error");
  ExpectBody(body, {
                       "start resp_T5 gpt-test",
                       "text 0 [Partial]",
                       "error overloaded retryable after_output http=0 type=server_error "
                       "code=server_is_overloaded retry_after=?",
                   });
  std::vector<ProviderEvent> events = DecodeChunks({body});
  EXPECT_EQ(std::get<ErrorEvent>(events.back()).message,
            "The server is overloaded. Please retry.");
}

TEST(OpenAiResponsesFixturesTest, MidstreamErrorWithFlatPayload) {
  std::string body = ReadFixture("05-midstream-error");
  std::string nested =
      R"({"type":"error","sequence_number":5,"error":{"type":"server_error","code":"server_is_overloaded","message":"The server is overloaded. Please retry.","param":null}})";
  std::string flat =
      R"({"type":"error","sequence_number":5,"code":"server_is_overloaded","message":"The server is overloaded. Please retry.","param":null})";
  ASSERT_NE(body.find(nested), std::string::npos);
  body = absl::StrReplaceAll(body, {{nested, flat}});
  ExpectBody(body, {
                       "start resp_T5 gpt-test",
                       "text 0 [Partial]",
                       "error overloaded retryable after_output http=0 type= "
                       "code=server_is_overloaded retry_after=?",
                   });
  EXPECT_EQ(std::get<ErrorEvent>(DecodeChunks({body}).back()).message,
            "The server is overloaded. Please retry.");
}

TEST(OpenAiResponsesFixturesTest, CutoffIsPrematureEofWithoutToolCallEnd) {
  std::vector<std::string> expected = {
      "start resp_T6 gpt-test",
      "call_start 0 call_Q write_file",
      "call_delta 0 [{\"path\":\"src/]",
      "error premature_eof retryable after_output http=0 type= code= retry_after=?",
  };
  ExpectBody(ReadFixture("06-cutoff"), expected);
  bool pending = true;
  DecodeChunks({ReadFixture("06-cutoff")}, &pending);
  EXPECT_FALSE(pending);

  // Variant: a half-sent event before the close is discarded.
  std::string variant = ReadFixture("06-cutoff") +
                        "event: response.function_call_arguments.delta\ndata: {\"type\":\"resp";
  ExpectSplitInvariant(variant, expected);
  DecodeChunks({variant}, &pending);
  EXPECT_TRUE(pending);
}

}  // namespace
}  // namespace raw::providers::openai_responses
