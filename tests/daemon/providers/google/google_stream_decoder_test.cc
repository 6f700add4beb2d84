// The Gemini stream decoder on synthetic chunks: the cases the fixtures do
// not cover (blocked prompts, finish families, provider call ids, signatures
// on thought parts, malformed chunks, the non-SSE array body, usage rules).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/providers/google/stream_decoder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::google {
namespace {

using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::providers::testing::ExpectTooManyToolCalls;
using ::testing::ElementsAre;

// Decodes each string as one SSE frame's data, then EOF.
std::vector<ProviderEvent> DecodeFrames(const std::vector<std::string>& frames) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  for (const std::string& data : frames) decoder.Decode(http::SseFrame{"", data, "", {}}, &events);
  decoder.Finish(&events);
  ExpectStreamInvariants(events);
  return events;
}

std::string Chunk(const std::string& parts, const std::string& extra = "") {
  return R"({"candidates":[{"content":{"parts":)" + parts + R"(,"role":"model"},"index":0)" +
         extra + R"(}],"responseId":"r9","modelVersion":"m"})";
}

TEST(GoogleStreamDecoderTest, ProviderCallIdsAndArgumentOrderAreKept) {
  EXPECT_THAT(
      EventTexts(DecodeFrames({Chunk(
          R"([{"functionCall":{"id":"fc-1","name":"edit","args":{"z":[1,{"b":2,"a":1}],"a":"x"}}},)"
          R"({"functionCall":{"name":"now"}}])",
          R"(,"finishReason":"STOP")")})),
      ElementsAre("start r9 m", "call_start 0 fc-1 edit",
                  R"(call_delta 0 [{"z":[1,{"b":2,"a":1}],"a":"x"}])", "call_start 1 gemini-r9-1 now",
                  "call_delta 1 [{}]", R"(call_end 0 fc-1 edit [{"z":[1,{"b":2,"a":1}],"a":"x"}] complete)",
                  "call_end 1 gemini-r9-1 now [{}] complete", "finish tool_calls raw=STOP"));
}

TEST(GoogleStreamDecoderTest, ThoughtSignatureOnThoughtPartRidesOnItsEnd) {
  EXPECT_THAT(
      EventTexts(DecodeFrames({
          Chunk(R"([{"text":"think ","thought":true}])"),
          Chunk(R"([{"text":"more","thought":true,"thoughtSignature":"TS"},{"text":"Answer"}])",
                R"(,"finishReason":"STOP")"),
      })),
      ElementsAre("start r9 m", "reasoning 0 [think ]", "reasoning 0 [more]",
                  "reasoning_end 0 opaque=google/thought_signature/thought [TS]", "text 1 [Answer]",
                  "finish stop raw=STOP"));
}

TEST(GoogleStreamDecoderTest, CallsAreIncompleteUnlessStop) {
  EXPECT_THAT(EventTexts(DecodeFrames({Chunk(R"([{"functionCall":{"name":"a","args":{}}}])",
                                             R"(,"finishReason":"MAX_TOKENS")")})),
              ElementsAre("start r9 m", "call_start 0 gemini-r9-0 a", "call_delta 0 [{}]",
                          "call_end 0 gemini-r9-0 a [{}] incomplete", "finish length raw=MAX_TOKENS"));
  EXPECT_THAT(EventTexts(DecodeFrames({Chunk(R"([{"functionCall":{"name":"a","args":[1]}}])",
                                             R"(,"finishReason":"STOP")")})),
              ElementsAre("start r9 m", "call_start 0 gemini-r9-0 a", "call_delta 0 [[1]]",
                          "call_end 0 gemini-r9-0 a [[1]] incomplete",
                          "finish malformed_tool_call raw=STOP"));
}

TEST(GoogleStreamDecoderTest, FinishReasonFamilies) {
  struct Row {
    const char* raw;
    const char* text;
  };
  for (const Row& row : {Row{"SAFETY", "content_filter"}, Row{"RECITATION", "content_filter"},
                         Row{"IMAGE_SAFETY", "content_filter"}, Row{"SPII", "content_filter"},
                         Row{"MALFORMED_FUNCTION_CALL", "malformed_tool_call"},
                         Row{"UNEXPECTED_TOOL_CALL", "malformed_tool_call"},
                         Row{"TOO_MANY_TOOL_CALLS", "malformed_tool_call"},
                         Row{"OTHER", "unknown"}, Row{"FINISH_REASON_UNSPECIFIED", "unknown"},
                         Row{"SOMETHING_NEW", "unknown"}}) {
    std::vector<ProviderEvent> events = DecodeFrames(
        {Chunk(R"([{"text":""}])", std::string(R"(,"finishReason":")") + row.raw + "\"")});
    EXPECT_EQ(EventTexts(events).back(), std::string("finish ") + row.text + " raw=" + row.raw);
  }
}

TEST(GoogleStreamDecoderTest, BlockedPromptIsContentFilter) {
  EXPECT_THAT(EventTexts(DecodeFrames({R"({"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},)"
                                       R"("usageMetadata":{"promptTokenCount":7},"responseId":"b"})"})),
              ElementsAre("start b ", "usage in=7 out=0 cache_read=0 cache_write=? reasoning=0",
                          "finish content_filter raw=PROHIBITED_CONTENT"));
}

TEST(GoogleStreamDecoderTest, UsageWithoutPromptCountStaysUnknown) {
  EXPECT_THAT(EventTexts(DecodeFrames({Chunk(R"([{"text":"x"}])", R"(,"finishReason":"STOP")"),
                                       R"({"usageMetadata":{"candidatesTokenCount":3}})"})),
              ElementsAre("start r9 m", "text 0 [x]",
                          "usage in=? out=? cache_read=? cache_write=? reasoning=?",
                          "finish stop raw=STOP"));
}

TEST(GoogleStreamDecoderTest, NoUsageMetadataMeansNoUsageEvent) {
  EXPECT_THAT(EventTexts(DecodeFrames({Chunk(R"([{"text":"x"}])", R"(,"finishReason":"STOP")")})),
              ElementsAre("start r9 m", "text 0 [x]", "finish stop raw=STOP"));
}

TEST(GoogleStreamDecoderTest, OtherCandidatesAndPartKindsAreIgnored) {
  EXPECT_THAT(
      EventTexts(DecodeFrames({
          R"({"candidates":[{"content":{"parts":[{"text":"other"}]},"index":1}]})",
          Chunk(R"([{"inlineData":{"mimeType":"image/png","data":"AA=="}},{"executableCode":{}},)"
                R"({"text":"ok"}])",
                R"(,"finishReason":"STOP")"),
      })),
      ElementsAre("start  ", "text 0 [ok]", "finish stop raw=STOP"));
}

TEST(GoogleStreamDecoderTest, MalformedChunkIsARetryableError) {
  EXPECT_THAT(EventTexts(DecodeFrames({Chunk(R"([{"text":"a"}])"), "{not json"})),
              ElementsAre("start r9 m", "text 0 [a]",
                          "error server retryable after_output http=0 type= code= retry_after=?"));
}

TEST(GoogleStreamDecoderTest, ErrorBeforeAnyOutputIsALoneError) {
  EXPECT_THAT(
      EventTexts(DecodeFrames({R"({"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}})"})),
      ElementsAre("error invalid_request final before_output http=0 type= code=INVALID_ARGUMENT "
                  "retry_after=?"));
}

TEST(GoogleStreamDecoderTest, NothingAfterTheTerminalEvent) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.Decode({"", R"({"error":{"code":503,"status":"UNAVAILABLE"}})", "", {}}, &events);
  decoder.Decode({"", Chunk(R"([{"text":"late"}])", R"(,"finishReason":"STOP")"), "", {}}, &events);
  decoder.Finish(&events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("error overloaded retryable before_output http=0 type= code=UNAVAILABLE "
                          "retry_after=?"));
}

TEST(GoogleStreamDecoderTest, CallerFailureEndsTheStream) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.Decode({"", Chunk(R"([{"text":"a"}])"), "", {}}, &events);
  ErrorEvent cancelled;
  cancelled.kind = ErrorKind::kCancelled;
  decoder.Fail(cancelled, &events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start r9 m", "text 0 [a]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
}

TEST(GoogleStreamDecoderTest, NonStreamedArrayBody) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(
      "[" + Chunk(R"([{"text":"a"}])") + "," +
          Chunk(R"([{"text":"b"}])", R"(,"finishReason":"STOP")") + "]",
      &events);
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start r9 m", "text 0 [a]", "text 0 [b]", "finish stop raw=STOP"));
}

TEST(GoogleStreamDecoderTest, NonStreamedGarbage) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed("<html>", &events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(std::get<ErrorEvent>(events[0]).message,
              ::testing::HasSubstr("the response body is not valid JSON"));
}

TEST(GoogleStreamDecoderTest, NormalizeUsage) {
  absl::StatusOr<OrderedJson> usage = ParseOrderedJson(
      R"({"promptTokenCount":100,"cachedContentTokenCount":60,"candidatesTokenCount":5,)"
      R"("thoughtsTokenCount":7,"totalTokenCount":112})");
  ASSERT_TRUE(usage.ok());
  events::Usage u = NormalizeGeminiUsage(*usage);
  EXPECT_EQ(u.input_tokens, 100);
  EXPECT_EQ(u.cache_read_tokens, 60);
  EXPECT_EQ(u.cache_write_tokens, std::nullopt);
  EXPECT_EQ(u.output_tokens, 12);
  EXPECT_EQ(u.reasoning_tokens, 7);
}

TEST(GoogleStreamDecoderTest, AbsurdUsageIsUnknownNotWrapped) {
  absl::StatusOr<OrderedJson> usage = ParseOrderedJson(
      R"({"promptTokenCount":10,"candidatesTokenCount":5e18,"thoughtsTokenCount":5e18})");
  ASSERT_TRUE(usage.ok());
  events::Usage u = NormalizeGeminiUsage(*usage);
  EXPECT_EQ(u.input_tokens, 10);
  // Present but implausible: unknown, not an omitted zero.
  EXPECT_EQ(u.output_tokens, std::nullopt);
  EXPECT_EQ(u.reasoning_tokens, std::nullopt);
  EXPECT_EQ(u.cache_read_tokens, 0);
}

// A response may carry at most 256 tool calls, in one chunk or spread over
// many.
TEST(GoogleStreamDecoderTest, MoreThan256ToolCallsEndTheResponse) {
  const std::string call = R"({"functionCall":{"name":"f","args":{}}},{"text":"after"})";
  std::string parts;
  std::vector<std::string> frames;
  for (int i = 0; i < 300; ++i) {
    absl::StrAppend(&parts, i > 0 ? "," : "", call);
    frames.push_back(Chunk("[" + call + "]"));
  }
  ExpectTooManyToolCalls(DecodeFrames({Chunk("[" + parts + "]", R"(,"finishReason":"STOP")")}));
  frames.push_back(Chunk(R"([{"text":"end"}])", R"(,"finishReason":"STOP")"));
  ExpectTooManyToolCalls(DecodeFrames(frames));
}

}  // namespace
}  // namespace raw::providers::google
