// The Anthropic stream decoder on the fixtures of
// tests/fixtures/sse/anthropic/, each fed whole, split at every byte
// boundary, byte by byte and in random chunks, with "\n", "\r\n" and "\r"
// line ends; every way gives the same events.
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/anthropic/stream_decoder.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/anthropic/fixture_reader.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::anthropic {
namespace {

using ::raw::providers::anthropic::testing::DecodeBody;
using ::raw::providers::anthropic::testing::DecodeChunks;
using ::raw::providers::anthropic::testing::ReadFixture;
using ::raw::providers::testing::ExpectStreamInvariants;

void ExpectSplitInvariant(const std::string& body, const std::vector<std::string>& expected) {
  ::raw::providers::testing::ExpectSplitInvariant(
      [](const auto& chunks) { return DecodeChunks(chunks); }, body, expected);
}

void ExpectFixture(const std::string& name, const std::vector<std::string>& expected) {
  std::string body = ReadFixture(name);
  ASSERT_FALSE(body.empty());
  ExpectStreamInvariants(DecodeBody(body));
  ExpectSplitInvariant(body, expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r\n"}}), expected);
  ExpectSplitInvariant(absl::StrReplaceAll(body, {{"\n", "\r"}}), expected);
}

TEST(AnthropicFixturesTest, Text) {
  ExpectFixture("01-text", {
                               "start msg_T1 claude-test",
                               "text 0 [Hello]",
                               "text 0 [, world.]",
                               "usage in=12 out=6 cache_read=0 cache_write=0 reasoning=?",
                               "finish stop raw=end_turn",
                           });
}

TEST(AnthropicFixturesTest, ParallelToolsWithThinking) {
  ExpectFixture("02-parallel-tools",
                {
                    "start msg_T2 claude-test",
                    "reasoning 0 [Need both files.]",
                    // The id is the byte length of the block's thinking text.
                    "reasoning_end 0 opaque=anthropic/thinking_signature/16 [EqQBCkYIARgCsig]",
                    "call_start 0 toolu_01A read_file",
                    "call_delta 0 [{\"path\": \"a.]",
                    "call_delta 0 [txt\"}]",
                    "call_start 1 toolu_01B read_file",
                    "call_delta 1 [{\"path\": \"b.txt\"}]",
                    "call_start 2 toolu_01C list_dir",
                    "call_delta 2 [{}]",
                    "call_end 0 toolu_01A read_file [{\"path\": \"a.txt\"}] complete",
                    "call_end 1 toolu_01B read_file [{\"path\": \"b.txt\"}] complete",
                    "call_end 2 toolu_01C list_dir [{}] complete",
                    "usage in=565 out=92 cache_read=0 cache_write=0 reasoning=?",
                    "finish tool_calls raw=tool_use",
                });
}

TEST(AnthropicFixturesTest, UsageWithCacheIsOverlaidNotAdded) {
  ExpectFixture("03-usage-cache",
                {
                    "start msg_T3 claude-test",
                    "text 0 [Cached.]",
                    "usage in=7495 out=198 cache_read=6289 cache_write=1200 reasoning=0",
                    "finish stop raw=end_turn",
                });
}

TEST(AnthropicFixturesTest, UsageDeltaWithOnlyOutputTokensKeepsTheInputSide) {
  std::string body = absl::StrReplaceAll(
      ReadFixture("03-usage-cache"),
      {{R"("usage":{"input_tokens":6,"cache_creation_input_tokens":1200,"cache_read_input_tokens":6289,"output_tokens":198,"output_tokens_details":{"thinking_tokens":0}})",
        R"("usage":{"output_tokens":198})"}});
  ASSERT_NE(body, ReadFixture("03-usage-cache"));
  ExpectSplitInvariant(body, {
                                 "start msg_T3 claude-test",
                                 "text 0 [Cached.]",
                                 "usage in=7495 out=198 cache_read=6289 cache_write=1200 "
                                 "reasoning=?",
                                 "finish stop raw=end_turn",
                             });
}

TEST(AnthropicFixturesTest, MaxTokensLeavesTheCutCallIncomplete) {
  ExpectFixture("04-max-tokens",
                {
                    "start msg_T4 claude-test",
                    "text 0 [Writing the file.]",
                    "call_start 0 toolu_01W write_file",
                    "call_delta 0 [{\"path\": \"main.cpp\", ]",
                    "call_delta 0 [\"content\": \"#include <vec]",
                    "call_end 0 toolu_01W write_file "
                    "[{\"path\": \"main.cpp\", \"content\": \"#include <vec] incomplete",
                    "usage in=40 out=64 cache_read=0 cache_write=0 reasoning=?",
                    "finish length raw=max_tokens",
                });
}

TEST(AnthropicFixturesTest, MidstreamErrorEndsTheStream) {
  ExpectFixture("05-midstream-error",
                {
                    "start msg_T5 claude-test",
                    "text 0 [Partial]",
                    "error overloaded retryable after_output http=0 type=overloaded_error code= "
                    "retry_after=?",
                });
  std::vector<ProviderEvent> events = DecodeBody(ReadFixture("05-midstream-error"));
  EXPECT_EQ(std::get<ErrorEvent>(events.back()).message, "Overloaded");
}

TEST(AnthropicFixturesTest, CutoffIsPrematureEofWithoutToolCallEnd) {
  std::vector<std::string> expected = {
      "start msg_T6 claude-test",
      "text 0 [Let me check]",
      "call_start 0 toolu_01X run",
      "call_delta 0 [{\"cmd\": \"ls]",
      "error premature_eof retryable after_output http=0 type= code= retry_after=?",
  };
  ExpectFixture("06-cutoff", expected);
  bool pending = true;
  DecodeChunks({ReadFixture("06-cutoff")}, &pending);
  EXPECT_FALSE(pending);

  // Variant: a half-sent event before the close is discarded.
  std::string variant = ReadFixture("06-cutoff") +
                        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"ind";
  ExpectSplitInvariant(variant, expected);
  DecodeChunks({variant}, &pending);
  EXPECT_TRUE(pending);
}

}  // namespace
}  // namespace raw::providers::anthropic
