// The Responses stream decoder on synthetic streams: terminal events and
// their finish mapping, items completed from the final response, tool-call
// assembly by item id, reasoning parts and their opaque state, errors, and
// non-streamed bodies.
#include "daemon/providers/openai_responses/stream_decoder.h"
#include "daemon/providers/openai_responses/usage.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/daemon/providers/openai_responses/fixture_support.h"

namespace raw::providers::openai_responses {
namespace {

using ::raw::providers::openai_responses::testing::DecodeChunks;
using ::raw::providers::openai_responses::testing::SseEvent;
using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::providers::testing::ExpectTooManyToolCalls;
using ::testing::ElementsAre;

const char kCreated[] =
    R"({"type":"response.created","response":{"id":"resp_1","model":"gpt-test","status":"in_progress","output":[],"usage":null}})";

std::string Created() { return SseEvent("response.created", kCreated); }

std::string CallAdded(const std::string& item_id, const std::string& call_id,
                      const std::string& name, const std::string& arguments = "") {
  return SseEvent("response.output_item.added",
                  R"({"type":"response.output_item.added","item":{"id":")" + item_id +
                      R"(","type":"function_call","status":"in_progress","arguments":)" +
                      DumpJson(Json(arguments)) + R"(,"call_id":")" + call_id +
                      R"(","name":")" + name + R"("}})");
}

std::string ArgsDelta(const std::string& item_id, const std::string& delta) {
  return SseEvent("response.function_call_arguments.delta",
                  R"({"type":"response.function_call_arguments.delta","item_id":")" + item_id +
                      R"(","delta":)" + DumpJson(Json(delta)) + "}");
}

std::string ArgsDone(const std::string& item_id, const std::string& arguments) {
  return SseEvent("response.function_call_arguments.done",
                  R"({"type":"response.function_call_arguments.done","item_id":")" + item_id +
                      R"(","arguments":)" + DumpJson(Json(arguments)) + "}");
}

std::string TextDelta(const std::string& item_id, const std::string& delta) {
  return SseEvent("response.output_text.delta",
                  R"({"type":"response.output_text.delta","item_id":")" + item_id +
                      R"(","output_index":0,"content_index":0,"delta":)" + DumpJson(Json(delta)) +
                      "}");
}

std::string Completed(const std::string& output = "[]") {
  return SseEvent("response.completed",
                  R"({"type":"response.completed","response":{"id":"resp_1","model":"gpt-test","status":"completed","output":)" +
                      output + "}}");
}

std::vector<std::string> Decode(const std::string& body) {
  std::vector<ProviderEvent> events = DecodeChunks({body});
  ExpectStreamInvariants(events);
  return EventTexts(events);
}

TEST(OpenAiResponsesStreamDecoderTest, TwoMessageItemsAreTwoParts) {
  EXPECT_THAT(Decode(Created() + TextDelta("msg_a", "Looking.") + TextDelta("msg_b", "Done.") +
                     Completed()),
              ElementsAre("start resp_1 gpt-test", "text 0 [Looking.]", "text 1 [Done.]",
                          "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, FinalArgumentsAddTheMissingTail) {
  EXPECT_THAT(Decode(Created() + CallAdded("fc_1", "call_1", "ls") + ArgsDelta("fc_1", "{\"d\"") +
                     ArgsDone("fc_1", "{\"d\":1}") + Completed()),
              ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 ls",
                          "call_delta 0 [{\"d\"]", "call_delta 0 [:1}]",
                          "call_end 0 call_1 ls [{\"d\":1}] complete",
                          "finish tool_calls raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, WholeCallInTheAddedItem) {
  EXPECT_THAT(Decode(Created() + CallAdded("fc_1", "call_1", "ls", "{}") + Completed()),
              ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 ls", "call_delta 0 [{}]",
                          "call_end 0 call_1 ls [{}] complete", "finish tool_calls raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, EmptyArgumentsBecomeAnEmptyObject) {
  EXPECT_THAT(Decode(Created() + CallAdded("fc_1", "call_1", "now") + ArgsDone("fc_1", "") +
                     Completed()),
              ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 now", "call_delta 0 [{}]",
                          "call_end 0 call_1 now [{}] complete",
                          "finish tool_calls raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, InterleavedCallsAreKeyedByItemId) {
  EXPECT_THAT(
      Decode(Created() + CallAdded("fc_1", "call_1", "a") + CallAdded("fc_2", "call_2", "b") +
             ArgsDelta("fc_2", "{\"y\":2}") + ArgsDelta("fc_1", "{\"x\":1}") + Completed()),
      ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 a", "call_start 1 call_2 b",
                  "call_delta 1 [{\"y\":2}]", "call_delta 0 [{\"x\":1}]",
                  "call_end 0 call_1 a [{\"x\":1}] complete",
                  "call_end 1 call_2 b [{\"y\":2}] complete", "finish tool_calls raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, BrokenArgumentsAreMalformedNotExecutable) {
  EXPECT_THAT(Decode(Created() + CallAdded("fc_1", "call_1", "ls") +
                     ArgsDelta("fc_1", "{\"d\":") + Completed()),
              ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 ls",
                          "call_delta 0 [{\"d\":]", "call_end 0 call_1 ls [{\"d\":] incomplete",
                          "finish malformed_tool_call raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, IncompleteResponseLeavesCallsIncomplete) {
  std::string incomplete = SseEvent(
      "response.incomplete",
      R"({"type":"response.incomplete","response":{"status":"incomplete","output":[],"incomplete_details":{"reason":"max_output_tokens"}}})");
  EXPECT_THAT(Decode(Created() + CallAdded("fc_1", "call_1", "ls") + ArgsDelta("fc_1", "{}") +
                     incomplete),
              ElementsAre("start resp_1 gpt-test", "call_start 0 call_1 ls", "call_delta 0 [{}]",
                          "call_end 0 call_1 ls [{}] incomplete",
                          "finish length raw=max_output_tokens"));
}

TEST(OpenAiResponsesStreamDecoderTest, IncompleteForContentFilter) {
  std::string incomplete = SseEvent(
      "response.incomplete",
      R"({"type":"response.incomplete","response":{"status":"incomplete","output":[],"incomplete_details":{"reason":"content_filter"}}})");
  EXPECT_THAT(Decode(Created() + TextDelta("m", "I") + incomplete),
              ElementsAre("start resp_1 gpt-test", "text 0 [I]",
                          "finish content_filter raw=content_filter"));
}

TEST(OpenAiResponsesStreamDecoderTest, RefusalIsTextAndAContentFilterFinish) {
  std::string refusal = SseEvent(
      "response.refusal.delta",
      R"({"type":"response.refusal.delta","item_id":"m","content_index":0,"delta":"I can't help with that."})");
  EXPECT_THAT(Decode(Created() + refusal + Completed()),
              ElementsAre("start resp_1 gpt-test", "text 0 [I can't help with that.]",
                          "finish content_filter raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, ResponseDoneAliasCompletesFromTheFinalOutput) {
  // A backend that streams nothing but the terminal event: the items come
  // from the final response.
  std::string done = SseEvent(
      "response.done",
      R"({"type":"response.done","response":{"id":"resp_9","model":"m9","status":"completed","output":[)"
      R"({"id":"rs_9","type":"reasoning","summary":[{"type":"summary_text","text":"Think."}],"encrypted_content":"enc9"},)"
      R"({"id":"msg_9","type":"message","content":[{"type":"output_text","text":"Hi"}]},)"
      R"({"id":"fc_9","type":"function_call","call_id":"call_9","name":"ls","arguments":"{}"}],)"
      R"("usage":{"input_tokens":5,"output_tokens":3}}})");
  EXPECT_THAT(Decode(done),
              ElementsAre("start resp_9 m9", "reasoning 0 [Think.]",
                          "reasoning_end 0 opaque=openai-responses/reasoning_item/rs_9 [enc9]",
                          "text 1 [Hi]", "call_start 0 call_9 ls", "call_delta 0 [{}]",
                          "call_end 0 call_9 ls [{}] complete",
                          "usage in=5 out=3 cache_read=? cache_write=? reasoning=?",
                          "finish tool_calls raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, FinalOutputAddsOnlyAMissingTextTail) {
  std::string output =
      R"([{"id":"m","type":"message","content":[{"type":"output_text","text":"Hello there"}]}])";
  EXPECT_THAT(Decode(Created() + TextDelta("m", "Hello") + Completed(output)),
              ElementsAre("start resp_1 gpt-test", "text 0 [Hello]", "text 0 [ there]",
                          "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, SummaryPartsAreSeparatedAndPlainReasoningHasNoOpaque) {
  auto summary = [](int index, const std::string& text) {
    return SseEvent("response.reasoning_summary_text.delta",
                    R"({"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":)" +
                        std::to_string(index) + R"(,"delta":")" + text + R"("})");
  };
  std::string done = SseEvent(
      "response.output_item.done",
      R"({"type":"response.output_item.done","item":{"id":"rs_1","type":"reasoning","summary":[]}})");
  EXPECT_THAT(Decode(Created() + summary(0, "One.") + summary(1, "Two.") + done +
                     TextDelta("m", "ok") + Completed()),
              ElementsAre("start resp_1 gpt-test", "reasoning 0 [One.]", "reasoning 0 [\n\n]",
                          "reasoning 0 [Two.]", "reasoning_end 0", "text 1 [ok]",
                          "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, RawReasoningTextOpenWeightModels) {
  std::string delta = SseEvent(
      "response.reasoning_text.delta",
      R"({"type":"response.reasoning_text.delta","item_id":"rs_1","content_index":0,"delta":"hmm"})");
  EXPECT_THAT(Decode(Created() + delta + Completed()),
              ElementsAre("start resp_1 gpt-test", "reasoning 0 [hmm]", "reasoning_end 0",
                          "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, FailedWithoutErrorEventCarriesUsage) {
  std::string failed = SseEvent(
      "response.failed",
      R"({"type":"response.failed","response":{"status":"failed","output":[],"usage":{"input_tokens":7,"output_tokens":0},"error":{"code":"rate_limit_exceeded","message":"Slow down."}}})");
  std::vector<ProviderEvent> events = DecodeChunks({Created() + failed});
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start resp_1 gpt-test",
                          "usage in=7 out=0 cache_read=? cache_write=? reasoning=?",
                          "error rate_limited retryable before_output http=0 type= "
                          "code=rate_limit_exceeded retry_after=?"));
  EXPECT_EQ(std::get<ErrorEvent>(events.back()).message, "Slow down.");
}

TEST(OpenAiResponsesStreamDecoderTest, FailedCodesThatMustNotBeRetried) {
  for (const char* code : {"invalid_prompt", "context_length_exceeded", "insufficient_quota"}) {
    std::string failed = SseEvent(
        "response.failed",
        std::string(R"({"type":"response.failed","response":{"status":"failed","error":{"code":")") +
            code + R"(","message":"no"}}})");
    std::vector<ProviderEvent> events = DecodeChunks({Created() + failed});
    const auto& error = std::get<ErrorEvent>(events.back());
    EXPECT_FALSE(error.retryable) << code;
    EXPECT_EQ(error.provider_code, code);
  }
}

TEST(OpenAiResponsesStreamDecoderTest, ErrorBeforeAnythingIsALoneError) {
  std::string error = SseEvent(
      "error",
      R"({"type":"error","code":"insufficient_quota","message":"You exceeded your current quota."})");
  std::vector<ProviderEvent> events = DecodeChunks({error});
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("error billing final before_output http=0 type= "
                          "code=insufficient_quota retry_after=?"));
}

TEST(OpenAiResponsesStreamDecoderTest, UnknownEventsCommentsAndDoneMarkerAreIgnored) {
  std::string body = Created() + ": keep-alive\n\n" +
                     SseEvent("response.web_search_call.searching",
                              R"({"type":"response.web_search_call.searching","item_id":"ws"})") +
                     SseEvent("response.future_thing", R"({"type":"response.future_thing"})") +
                     TextDelta("m", "x") + "data: [DONE]\n\n" + Completed();
  EXPECT_THAT(Decode(body), ElementsAre("start resp_1 gpt-test", "text 0 [x]",
                                        "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, TypeFallsBackToTheSseEventName) {
  std::string body = Created() +
                     "event: response.output_text.delta\n"
                     "data: {\"item_id\":\"m\",\"content_index\":0,\"delta\":\"y\"}\n\n" +
                     Completed();
  EXPECT_THAT(Decode(body), ElementsAre("start resp_1 gpt-test", "text 0 [y]",
                                        "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, NothingAfterTheTerminalEventIsDecoded) {
  EXPECT_THAT(Decode(Created() + Completed() + TextDelta("m", "late") +
                     SseEvent("error", R"({"type":"error","message":"late"})")),
              ElementsAre("start resp_1 gpt-test", "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, MalformedEventIsARetryableServerError) {
  std::vector<ProviderEvent> events =
      DecodeChunks({Created() + "event: response.output_text.delta\ndata: {\"type\":\n\n"});
  ExpectStreamInvariants(events);
  const auto& error = std::get<ErrorEvent>(events.back());
  EXPECT_EQ(error.kind, ErrorKind::kServer);
  EXPECT_TRUE(error.retryable);
  EXPECT_THAT(error.message, ::testing::HasSubstr("malformed event"));
}

TEST(OpenAiResponsesStreamDecoderTest, FailAfterOutputMarksAfterOutput) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  http::SseDecoder sse;
  sse.Feed(Created() + TextDelta("m", "a"),
           [&](const http::SseFrame& frame) { decoder.Decode(frame, &events); });
  ErrorEvent cancelled;
  cancelled.kind = ErrorKind::kCancelled;
  decoder.Fail(cancelled, &events);
  decoder.Finish(&events);  // no second terminal event
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start resp_1 gpt-test", "text 0 [a]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
  EXPECT_TRUE(decoder.done());
}

TEST(OpenAiResponsesStreamDecoderTest, NonStreamedResponse) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(
      R"({"id":"resp_J","model":"gpt-test","status":"completed","output":[)"
      R"({"id":"msg_J","type":"message","content":[{"type":"output_text","text":"Hi"}]}],)"
      R"("usage":{"input_tokens":3,"input_tokens_details":{"cached_tokens":0},"output_tokens":1}})",
      &events);
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start resp_J gpt-test", "text 0 [Hi]",
                          "usage in=3 out=1 cache_read=0 cache_write=? reasoning=?",
                          "finish stop raw=completed"));
}

TEST(OpenAiResponsesStreamDecoderTest, NonStreamedErrorsAndGarbage) {
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed(R"({"error":{"type":"server_error","message":"boom"}})", &events);
    EXPECT_THAT(EventTexts(events), ElementsAre("error server retryable before_output http=0 "
                                                "type=server_error code= retry_after=?"));
  }
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed("not json", &events);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_THAT(std::get<ErrorEvent>(events[0]).message,
                ::testing::HasSubstr("not valid JSON"));
  }
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed(R"({"id":"x"})", &events);
    EXPECT_THAT(std::get<ErrorEvent>(events.back()).message, ::testing::HasSubstr("\"output\""));
  }
}

TEST(OpenAiResponsesStreamDecoderTest, UsageFieldsStayUnknownWhenAbsent) {
  events::Usage usage = NormalizeResponsesUsage(
      *ParseJson(R"({"input_tokens":10,"output_tokens":-1,"input_tokens_details":null})"));
  EXPECT_EQ(usage.input_tokens, 10);
  EXPECT_EQ(usage.output_tokens, std::nullopt);
  EXPECT_EQ(usage.cache_read_tokens, std::nullopt);
  EXPECT_EQ(usage.cache_write_tokens, std::nullopt);
  EXPECT_EQ(usage.reasoning_tokens, std::nullopt);
  EXPECT_EQ(NormalizeResponsesUsage(Json("x")), events::Usage{});
}

// A response may carry at most 256 tool calls, streamed or only in the final
// response's output.
TEST(OpenAiResponsesStreamDecoderTest, MoreThan256ToolCallsEndTheResponse) {
  std::vector<std::string> chunks = {Created()};
  std::string output;
  for (int i = 0; i < 300; ++i) {
    std::string id = std::to_string(i);
    chunks.push_back(CallAdded("fc" + id, "call" + id, "f", "{}"));
    output += (i > 0 ? "," : "") + std::string(R"({"id":"fc)") + id +
              R"(","type":"function_call","status":"completed","arguments":"{}","call_id":"call)" +
              id + R"(","name":"f"})";
  }
  chunks.push_back(Completed());
  ExpectTooManyToolCalls(DecodeChunks(chunks));
  ExpectTooManyToolCalls(DecodeChunks({Created(), Completed("[" + output + "]")}));
}

}  // namespace
}  // namespace raw::providers::openai_responses
