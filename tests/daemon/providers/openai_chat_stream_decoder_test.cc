// The Chat Completions stream decoder on synthetic chunks: the accumulation,
// finish, usage and error rules that the fixtures do not reach, and the
// compatible servers' variants.
#include "daemon/providers/openai_chat/stream_decoder.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::openai_chat {
namespace {

using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::providers::testing::ExpectTooManyToolCalls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A chunk with one choice holding `delta` (JSON text) and `finish` (JSON
// value text), plus optional usage.
std::string Chunk(const std::string& delta, const std::string& finish = "null",
                  const std::string& usage = "null") {
  return absl::StrCat(R"({"id":"c1","object":"chat.completion.chunk","model":"m",)",
                      R"("choices":[{"index":0,"delta":)", delta,
                      R"(,"finish_reason":)", finish, R"(}],"usage":)", usage, "}");
}

http::SseFrame Frame(std::string data, std::string event = "") {
  http::SseFrame frame;
  frame.data = std::move(data);
  frame.event = std::move(event);
  return frame;
}

struct Decoded {
  std::vector<ProviderEvent> events;
  std::vector<std::string> texts;
};

// Decodes `frames`, then EOF.
Decoded Decode(const std::vector<std::string>& frames) {
  StreamDecoder decoder;
  Decoded run;
  for (const std::string& data : frames) decoder.Decode(Frame(data), &run.events);
  decoder.Finish(&run.events);
  run.texts = EventTexts(run.events);
  ExpectStreamInvariants(run.events);
  return run;
}

TEST(OpenAiChatStreamDecoderTest, WholeCallsInOneFragmentWithoutIndex) {
  // Ollama: every call complete in one fragment, several per array, no index
  // (older versions), and "stop" although calls were made.
  Decoded run = Decode({
      Chunk(R"({"role":"assistant","tool_calls":[)"
            R"({"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}},)"
            R"({"id":"call_2","type":"function","function":{"name":"cat","arguments":"{\"f\":1}"}}]})"),
      Chunk("{}", R"("stop")"),
      "[DONE]",
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_1 ls", "call_delta 0 [{}]",
                                     "call_start 1 call_2 cat", "call_delta 1 [{\"f\":1}]",
                                     "call_end 0 call_1 ls [{}] complete",
                                     "call_end 1 call_2 cat [{\"f\":1}] complete",
                                     "finish tool_calls raw=stop"));
}

TEST(OpenAiChatStreamDecoderTest, FragmentsWithoutIndexOrIdGoToTheLastCall) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"id":"call_1","function":{"name":"ls","arguments":"{\"a\""}}]})"),
      Chunk(R"({"tool_calls":[{"function":{"arguments":":2}"}}]})"),
      Chunk("{}", R"("tool_calls")"),
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_1 ls",
                                     "call_delta 0 [{\"a\"]", "call_delta 0 [:2}]",
                                     "call_end 0 call_1 ls [{\"a\":2}] complete",
                                     "finish tool_calls raw=tool_calls"));
}

TEST(OpenAiChatStreamDecoderTest, RepeatedIdAndNameAreNotAppendedAgain) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"ls","arguments":"{"}}]})"),
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"ls","arguments":"}"}}]})"),
      Chunk("{}", R"("tool_calls")"),
      "[DONE]",
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_1 ls", "call_delta 0 [{]",
                                     "call_delta 0 [}]", "call_end 0 call_1 ls [{}] complete",
                                     "finish tool_calls raw=tool_calls"));
}

TEST(OpenAiChatStreamDecoderTest, NewIdUnderAUsedIndexIsANewCall) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]})"),
      Chunk(R"({"tool_calls":[{"index":0,"id":"b","function":{"name":"y","arguments":"{}"}}]})"),
      Chunk("{}", R"("tool_calls")"),
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 a x", "call_delta 0 [{}]",
                                     "call_start 1 b y", "call_delta 1 [{}]",
                                     "call_end 0 a x [{}] complete", "call_end 1 b y [{}] complete",
                                     "finish tool_calls raw=tool_calls"));
}

TEST(OpenAiChatStreamDecoderTest, MissingCallIdIsSynthesised) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"function":{"name":"ls","arguments":""}}]})"),
      Chunk("{}", R"("tool_calls")"),
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_c1_0 ls",
                                     "call_delta 0 [{}]", "call_end 0 call_c1_0 ls [{}] complete",
                                     "finish tool_calls raw=tool_calls"));
}

TEST(OpenAiChatStreamDecoderTest, EmptyArgumentsBecomeAnEmptyObject) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"now","arguments":""}}]})"),
      Chunk("{}", R"("tool_calls")"),
      "[DONE]",
  });
  const auto& end = std::get<ToolCallEndEvent>(run.events[run.events.size() - 2]);
  EXPECT_EQ(end.arguments, "{}");
  EXPECT_TRUE(end.complete);
}

TEST(OpenAiChatStreamDecoderTest, InvalidArgumentsAtFinishAreIncomplete) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"ls","arguments":"{\"a\":"}}]})"),
      Chunk("{}", R"("tool_calls")"),
      "[DONE]",
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_1 ls",
                                     "call_delta 0 [{\"a\":]",
                                     "call_end 0 call_1 ls [{\"a\":] incomplete",
                                     "finish malformed_tool_call raw=tool_calls"));
  // Arguments that parse but are not an object are not a call either.
  Decoded array = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"ls","arguments":"[1]"}}]})"),
      Chunk("{}", R"("stop")"),
  });
  EXPECT_FALSE(std::get<ToolCallEndEvent>(array.events[3]).complete);
}

TEST(OpenAiChatStreamDecoderTest, LengthClosesOpenCallsAsIncomplete) {
  Decoded run = Decode({
      Chunk(R"({"tool_calls":[{"index":0,"id":"call_1","function":{"name":"w","arguments":"{}"}}]})"),
      Chunk("{}", R"("length")"),
      "[DONE]",
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "call_start 0 call_1 w", "call_delta 0 [{}]",
                                     "call_end 0 call_1 w [{}] incomplete",
                                     "finish length raw=length"));
}

TEST(OpenAiChatStreamDecoderTest, FinishReasonThenEofWithoutDoneIsComplete) {
  Decoded run = Decode({Chunk(R"({"content":"hi"})"), Chunk("{}", R"("stop")")});
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "text 0 [hi]", "finish stop raw=stop"));
}

TEST(OpenAiChatStreamDecoderTest, EofWithoutFinishReasonIsPrematureEof) {
  Decoded run = Decode({Chunk(R"({"content":"hi"})"),
                    Chunk(R"({"tool_calls":[{"index":0,"id":"c","function":{"name":"x","arguments":"{}"}}]})")});
  EXPECT_THAT(run.texts.back(),
              "error premature_eof retryable after_output http=0 type= code= retry_after=?");
  for (const ProviderEvent& e : run.events) EXPECT_FALSE(std::holds_alternative<ToolCallEndEvent>(e));

  Decoded nothing = Decode({});
  EXPECT_THAT(nothing.texts, ElementsAre("error premature_eof retryable before_output http=0 "
                                         "type= code= retry_after=?"));
}

TEST(OpenAiChatStreamDecoderTest, LastNonNullUsageWinsAndMissingFieldsStayUnknown) {
  Decoded run = Decode({
      Chunk(R"({"content":"a"})", "null", R"({"prompt_tokens":5,"completion_tokens":1})"),
      Chunk(R"({"content":"b"})", "null", "null"),
      Chunk("{}", R"("stop")", R"({"prompt_tokens":5,"completion_tokens":2,"total_tokens":7})"),
      R"({"id":"c1","choices":[],"usage":null})",
      "[DONE]",
  });
  EXPECT_THAT(run.texts[run.texts.size() - 2],
              "usage in=5 out=2 cache_read=? cache_write=? reasoning=?");
}

TEST(OpenAiChatStreamDecoderTest, NormalizesUsageVariants) {
  auto usage = [](const std::string& text) { return NormalizeChatUsage(*ParseJson(text)); };
  // OpenAI with cache writes.
  events::Usage openai = usage(
      R"({"prompt_tokens":100,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":64,"cache_write_tokens":30},"completion_tokens_details":{"reasoning_tokens":8}})");
  EXPECT_EQ(openai, (events::Usage{100, 20, 64, 30, 8}));
  // DeepSeek: the hit count is preferred over cached_tokens.
  events::Usage deepseek = usage(
      R"({"prompt_tokens":339,"completion_tokens":83,"prompt_tokens_details":{"cached_tokens":1},"prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":19})");
  EXPECT_EQ(deepseek.cache_read_tokens, 320);
  EXPECT_EQ(deepseek.cache_write_tokens, std::nullopt);
  // Ollama: counts only; nothing else becomes zero.
  events::Usage ollama = usage(R"({"prompt_tokens":7,"completion_tokens":3,"total_tokens":10})");
  EXPECT_EQ(ollama, (events::Usage{7, 3, std::nullopt, std::nullopt, std::nullopt}));
  // llama-server: cached_tokens and a top-level cache_write_tokens.
  events::Usage llama = usage(
      R"({"prompt_tokens":50,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":40},"cache_write_tokens":10,"timings":{}})");
  EXPECT_EQ(llama, (events::Usage{50, 5, 40, 10, std::nullopt}));
  // Nulls, negatives and strings are unknown.
  events::Usage odd = usage(R"({"prompt_tokens":null,"completion_tokens":-1,"prompt_tokens_details":{"cached_tokens":"3"}})");
  EXPECT_EQ(odd, events::Usage{});
}

TEST(OpenAiChatStreamDecoderTest, ReasoningFieldOfOllamaHasNoOpaqueState) {
  Decoded run = Decode({Chunk(R"({"reasoning":"think"})"), Chunk(R"({"content":"answer"})"),
                    Chunk(R"({"reasoning":"more"})"), Chunk("{}", R"("stop")")});
  EXPECT_THAT(run.texts,
              ElementsAre("start c1 m", "reasoning 0 [think]", "reasoning_end 0", "text 1 [answer]",
                          "reasoning 2 [more]", "reasoning_end 2", "finish stop raw=stop"));
}

TEST(OpenAiChatStreamDecoderTest, ReasoningEndsBeforeToolCalls) {
  Decoded run = Decode(
      {Chunk(R"({"reasoning_content":"plan"})"),
       Chunk(R"({"tool_calls":[{"index":0,"id":"c","function":{"name":"x","arguments":"{}"}}]})"),
       Chunk("{}", R"("tool_calls")")});
  EXPECT_THAT(run.texts,
              ElementsAre("start c1 m", "reasoning 0 [plan]", "reasoning_end 0", "call_start 0 c x",
                          "call_delta 0 [{}]", "call_end 0 c x [{}] complete",
                          "finish tool_calls raw=tool_calls"));
}

TEST(OpenAiChatStreamDecoderTest, RefusalIsTextAndAContentFilterFinish) {
  Decoded run = Decode({Chunk(R"({"content":null,"refusal":"I can't help"})"),
                    Chunk("{}", R"("stop")")});
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "text 0 [I can't help]",
                                     "finish content_filter raw=stop"));
}

TEST(OpenAiChatStreamDecoderTest, MapsOtherFinishReasons) {
  EXPECT_EQ(Decode({Chunk("{}", R"("content_filter")")}).texts.back(),
            "finish content_filter raw=content_filter");
  EXPECT_EQ(Decode({Chunk("{}", R"("eos_token")")}).texts.back(), "finish unknown raw=eos_token");
  // tool_calls announced but no call streamed: nothing to run.
  EXPECT_EQ(Decode({Chunk("{}", R"("tool_calls")")}).texts.back(), "finish stop raw=tool_calls");
  // DeepSeek's interrupted generation is a retryable server error.
  EXPECT_EQ(Decode({Chunk(R"({"content":"x"})"), Chunk("{}", R"("insufficient_system_resource")"),
                    "[DONE]"})
                .texts.back(),
            "error server retryable after_output http=0 type= "
            "code=insufficient_system_resource retry_after=?");
}

TEST(OpenAiChatStreamDecoderTest, DoneWithoutFinishReasonEndsTheStream) {
  Decoded run = Decode({Chunk(R"({"content":"x"})"), "[DONE]"});
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "text 0 [x]", "finish stop raw="));
}

TEST(OpenAiChatStreamDecoderTest, ErrorEventAndErrorChunkBeforeOutput) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.Decode(Frame(R"({"error":{"message":"bad","type":"invalid_request_error"}})", "error"),
                 &events);
  decoder.Decode(Frame(Chunk(R"({"content":"late"})")), &events);
  decoder.Finish(&events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("error invalid_request final before_output http=0 "
                          "type=invalid_request_error code= retry_after=?"));
  EXPECT_EQ(std::get<ErrorEvent>(events[0]).message, "bad");

  // An "error" event whose data is not JSON keeps the text as the message.
  StreamDecoder plain;
  events.clear();
  plain.Decode(Frame("upstream went away", "error"), &events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(events[0]).message, "upstream went away");
  EXPECT_TRUE(std::get<ErrorEvent>(events[0]).retryable);
}

TEST(OpenAiChatStreamDecoderTest, MalformedChunkEndsTheStreamWithAnError) {
  Decoded run = Decode({Chunk(R"({"content":"x"})"), "{not json"});
  EXPECT_EQ(run.texts.back(), "error server retryable after_output http=0 type= code= retry_after=?");
  EXPECT_THAT(std::get<ErrorEvent>(run.events.back()).message, HasSubstr("malformed chunk"));
}

TEST(OpenAiChatStreamDecoderTest, SkipsOtherChoicesAndEmptyPreambles) {
  Decoded run = Decode({
      R"({"id":"","choices":[],"usage":null,"prompt_filter_results":[]})",
      R"({"id":"c1","model":"m","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"mine"}}]})",
      Chunk("{}", R"("stop")"),
  });
  EXPECT_THAT(run.texts, ElementsAre("start c1 m", "text 0 [mine]", "finish stop raw=stop"));
}

TEST(OpenAiChatStreamDecoderTest, FailAfterOutputMarksAfterOutput) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.Decode(Frame(Chunk(R"({"content":"x"})")), &events);
  ErrorEvent cancelled;
  cancelled.kind = ErrorKind::kCancelled;
  decoder.Fail(cancelled, &events);
  decoder.Finish(&events);  // no second terminal event
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start c1 m", "text 0 [x]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
}

TEST(OpenAiChatStreamDecoderTest, NonStreamedBodyGivesTheSameEvents) {
  std::string body = R"({"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,
    "message":{"role":"assistant","content":"Reading.","reasoning_content":"hmm",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]},
    "finish_reason":"tool_calls"}],
    "usage":{"prompt_tokens":9,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}})";
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(body, &events);
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start c1 m", "reasoning 0 [hmm]", "reasoning_end 0", "text 1 [Reading.]",
                          "call_start 0 call_1 read", "call_delta 0 [{\"p\":1}]",
                          "call_end 0 call_1 read [{\"p\":1}] complete",
                          "usage in=9 out=4 cache_read=0 cache_write=? reasoning=?",
                          "finish tool_calls raw=tool_calls"));

  StreamDecoder bad;
  events.clear();
  bad.DecodeNonStreamed("<html>oops</html>", &events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_THAT(std::get<ErrorEvent>(events[0]).message, HasSubstr("not valid JSON"));

  StreamDecoder error_body;
  events.clear();
  error_body.DecodeNonStreamed(R"({"error":{"message":"nope","type":"server_error"}})", &events);
  EXPECT_THAT(EventTexts(events), ElementsAre("error server retryable before_output http=0 "
                                              "type=server_error code= retry_after=?"));
}

// A response may carry at most 256 tool calls, streamed one a chunk, all in
// one chunk or in a whole body.
TEST(OpenAiChatStreamDecoderTest, MoreThan256ToolCallsEndTheResponse) {
  auto call = [](int i) {
    return absl::StrCat(R"({"index":)", i, R"(,"id":"c)", i,
                        R"(","type":"function","function":{"name":"f","arguments":"{}"}})");
  };
  std::vector<std::string> frames;
  std::string all;
  for (int i = 0; i < 300; ++i) {
    frames.push_back(Chunk(absl::StrCat(R"({"tool_calls":[)", call(i), "]}")));
    absl::StrAppend(&all, i > 0 ? "," : "", call(i));
  }
  frames.push_back(Chunk("{}", "\"tool_calls\""));
  frames.push_back("[DONE]");
  ExpectTooManyToolCalls(Decode(frames).events);
  ExpectTooManyToolCalls(
      Decode({Chunk(absl::StrCat(R"({"tool_calls":[)", all, "]}"), "\"tool_calls\""), "[DONE]"})
          .events);
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(
      absl::StrCat(R"({"id":"c1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls",)",
                   R"("message":{"role":"assistant","tool_calls":[)", all, "]}}]}"),
      &events);
  ExpectTooManyToolCalls(events);
}

}  // namespace
}  // namespace raw::providers::openai_chat
