// StreamDecoder on synthetic Anthropic streams: the block kinds and stop
// reasons the fixtures do not cover, odd orderings and malformed input.
#include "daemon/providers/anthropic/stream_decoder.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/anthropic/fixture_reader.h"
#include "tests/daemon/providers/event_text.h"

namespace raw::providers::anthropic {
namespace {

using ::raw::providers::anthropic::testing::DecodeBody;
using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::providers::testing::ExpectTooManyToolCalls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// One SSE event whose name is the JSON's "type".
std::string Event(const std::string& type, const std::string& json_fields) {
  return absl::StrCat("event: ", type, "\ndata: {\"type\":\"", type, "\"",
                      json_fields.empty() ? "" : ",", json_fields, "}\n\n");
}

std::string MessageStart(const std::string& usage = R"({"input_tokens":5,)"
                                                    R"("cache_creation_input_tokens":0,)"
                                                    R"("cache_read_input_tokens":0,)"
                                                    R"("output_tokens":1})") {
  return Event("message_start",
               absl::StrCat(R"("message":{"id":"msg_S","model":"claude-s","usage":)", usage, "}"));
}
std::string BlockStart(int index, const std::string& block) {
  return Event("content_block_start",
               absl::StrCat("\"index\":", index, ",\"content_block\":", block));
}
std::string BlockDelta(int index, const std::string& delta) {
  return Event("content_block_delta", absl::StrCat("\"index\":", index, ",\"delta\":", delta));
}
std::string BlockStop(int index) {
  return Event("content_block_stop", absl::StrCat("\"index\":", index));
}
std::string MessageDelta(const std::string& reason, const std::string& usage = "") {
  return Event("message_delta",
               absl::StrCat(R"("delta":{"stop_reason":")", reason, R"(","stop_sequence":null})",
                            usage.empty() ? "" : ",\"usage\":", usage));
}
std::string MessageStop() { return Event("message_stop", ""); }
std::string Text(int index, const std::string& text) {
  return BlockStart(index, R"({"type":"text","text":""})") +
         BlockDelta(index, absl::StrCat(R"({"type":"text_delta","text":")", text, "\"}")) +
         BlockStop(index);
}

TEST(AnthropicStreamDecoderTest, RedactedAndOmittedThinkingKeepTheirOpaqueState) {
  std::string body =
      MessageStart() + BlockStart(0, R"({"type":"redacted_thinking","data":"RED1"})") +
      BlockStop(0) + BlockStart(1, R"({"type":"thinking","thinking":"","signature":""})") +
      BlockDelta(1, R"({"type":"signature_delta","signature":"SIG_OMITTED"})") + BlockStop(1) +
      Text(2, "Answer") + MessageDelta("end_turn", R"({"output_tokens":9})") + MessageStop();
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_THAT(
      EventTexts(events),
      ElementsAre(
          "start msg_S claude-s", "reasoning_end 0 opaque=anthropic/redacted_thinking/ [RED1]",
          "reasoning_end 1 opaque=anthropic/thinking_signature/0 [SIG_OMITTED]", "text 2 [Answer]",
          "usage in=5 out=9 cache_read=0 cache_write=0 reasoning=?", "finish stop raw=end_turn"));
}

TEST(AnthropicStreamDecoderTest, SeveralThinkingBlocksRecordTheirOwnLengths) {
  std::string body =
      MessageStart() + BlockStart(0, R"({"type":"thinking","thinking":"","signature":""})") +
      BlockDelta(0, R"({"type":"thinking_delta","thinking":"h\u00e9"})") +
      BlockDelta(0, R"({"type":"signature_delta","signature":"S1"})") + BlockStop(0) +
      Text(1, "between") + BlockStart(2, R"({"type":"thinking","thinking":"","signature":""})") +
      BlockDelta(2, R"({"type":"thinking_delta","thinking":"more"})") + BlockStop(2) +
      MessageDelta("end_turn", R"({"output_tokens":3})") + MessageStop();
  EXPECT_THAT(
      EventTexts(DecodeBody(body)),
      ElementsAre("start msg_S claude-s", "reasoning 0 [h\xC3\xA9]",
                  "reasoning_end 0 opaque=anthropic/thinking_signature/3 [S1]", "text 1 [between]",
                  "reasoning 2 [more]",
                  // No signature arrived: nothing to replay.
                  "reasoning_end 2", "usage in=5 out=3 cache_read=0 cache_write=0 reasoning=?",
                  "finish stop raw=end_turn"));
}

TEST(AnthropicStreamDecoderTest, MessageDeltaWhileACallIsOpenLeavesItIncomplete) {
  std::string body =
      MessageStart() +
      BlockStart(0, R"({"type":"tool_use","id":"toolu_1","name":"run","input":{}})") +
      BlockDelta(0, R"({"type":"input_json_delta","partial_json":"{\"a\":1}"})") +
      MessageDelta("max_tokens", R"({"output_tokens":7})") + MessageStop();
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_THAT(
      EventTexts(events),
      ElementsAre("start msg_S claude-s", "call_start 0 toolu_1 run", "call_delta 0 [{\"a\":1}]",
                  "call_end 0 toolu_1 run [{\"a\":1}] incomplete",
                  "usage in=5 out=7 cache_read=0 cache_write=0 reasoning=?",
                  "finish length raw=max_tokens"));
}

TEST(AnthropicStreamDecoderTest, ErrorAfterAClosedCallNeverCompletesIt) {
  std::string body =
      MessageStart() +
      BlockStart(0, R"({"type":"tool_use","id":"toolu_1","name":"run","input":{}})") +
      BlockDelta(0, R"({"type":"input_json_delta","partial_json":"{}"})") + BlockStop(0) +
      "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
      "\"message\":\"Internal server error\"},\"request_id\":\"req_M\"}\n\n";
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start msg_S claude-s", "call_start 0 toolu_1 run", "call_delta 0 [{}]",
                          "error server retryable after_output http=0 type=api_error code= "
                          "retry_after=?"));
  const auto& error = std::get<ErrorEvent>(events.back());
  EXPECT_EQ(error.message, "Internal server error");
  EXPECT_EQ(error.request_id, "req_M");
}

TEST(AnthropicStreamDecoderTest, MidstreamErrorKinds) {
  struct Case {
    std::string type;
    std::string expected;
  };
  Case cases[] = {
      {"overloaded_error", "error overloaded retryable"},
      {"rate_limit_error", "error rate_limited retryable"},
      {"timeout_error", "error timeout retryable"},
      {"invalid_request_error", "error invalid_request final"},
      {"some_new_error", "error server retryable"},
  };
  for (const Case& c : cases) {
    std::string body = MessageStart() + Event("error", absl::StrCat(R"("error":{"type":")", c.type,
                                                                    R"(","message":"m"})"));
    std::vector<ProviderEvent> events = DecodeBody(body);
    EXPECT_THAT(EventTexts(events).back(), ::testing::StartsWith(c.expected)) << c.type;
    EXPECT_FALSE(std::get<ErrorEvent>(events.back()).after_output) << c.type;
  }
}

TEST(AnthropicStreamDecoderTest, StopReasons) {
  struct Case {
    const char* raw;
    const char* finish;
  };
  Case cases[] = {
      {"end_turn", "stop"},          {"stop_sequence", "stop"},
      {"max_tokens", "length"},      {"model_context_window_exceeded", "context_window"},
      {"refusal", "content_filter"}, {"pause_turn", "pause_turn"},
      {"tool_use", "unknown"},  // tool_use without any call
      {"a_new_reason", "unknown"},
  };
  for (const Case& c : cases) {
    std::string body = MessageStart() + Text(0, "x") + MessageDelta(c.raw) + MessageStop();
    EXPECT_EQ(EventTexts(DecodeBody(body)).back(),
              absl::StrCat("finish ", c.finish, " raw=", c.raw));
  }
}

TEST(AnthropicStreamDecoderTest, RefusalLeavesCallsIncomplete) {
  std::string body =
      MessageStart() +
      BlockStart(0, R"({"type":"tool_use","id":"toolu_1","name":"run","input":{}})") +
      BlockDelta(0, R"({"type":"input_json_delta","partial_json":"{}"})") + BlockStop(0) +
      MessageDelta("refusal") + MessageStop();
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_EQ(EventTexts(events)[3], "call_end 0 toolu_1 run [{}] incomplete");
  EXPECT_EQ(EventTexts(events).back(), "finish content_filter raw=refusal");
}

TEST(AnthropicStreamDecoderTest, ToolUseWithBrokenArgumentsIsMalformed) {
  std::string body =
      MessageStart() +
      BlockStart(0, R"({"type":"tool_use","id":"toolu_1","name":"run","input":{}})") +
      BlockDelta(0, R"({"type":"input_json_delta","partial_json":"[1,2]"})") + BlockStop(0) +
      MessageDelta("tool_use") + MessageStop();
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_EQ(EventTexts(events)[3], "call_end 0 toolu_1 run [[1,2]] incomplete");
  EXPECT_EQ(EventTexts(events).back(), "finish malformed_tool_call raw=tool_use");
}

TEST(AnthropicStreamDecoderTest, PingsUnknownEventsAndServerBlocksAreIgnored) {
  std::string body =
      Event("ping", "") + MessageStart() + Event("ping", "") + Event("brand_new_event", "\"x\":1") +
      BlockStart(0, R"({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search"})") +
      BlockDelta(0, R"({"type":"input_json_delta","partial_json":"{\"q\":1}"})") + BlockStop(0) +
      BlockStart(1, R"({"type":"text","text":""})") +
      BlockDelta(1, R"({"type":"citations_delta","citation":{}})") +
      BlockDelta(1, R"({"type":"text_delta","text":"ok"})") + BlockStop(1) +
      BlockDelta(7, R"({"type":"text_delta","text":"no such block"})") +
      MessageDelta("end_turn", R"({"output_tokens":2})") + MessageStop() + Text(2, "after the end");
  EXPECT_THAT(EventTexts(DecodeBody(body)),
              ElementsAre("start msg_S claude-s", "text 0 [ok]",
                          "usage in=5 out=2 cache_read=0 cache_write=0 reasoning=?",
                          "finish stop raw=end_turn"));
}

TEST(AnthropicStreamDecoderTest, MissingCacheCountersMakeTheInputTotalUnknown) {
  // A gateway that reports only input and output tokens.
  std::string body =
      MessageStart(R"({"input_tokens":30,"output_tokens":1})") + Text(0, "hi") +
      MessageDelta("end_turn", R"({"output_tokens":4,"cache_read_input_tokens":null})") +
      MessageStop();
  EXPECT_EQ(EventTexts(DecodeBody(body))[2],
            "usage in=? out=4 cache_read=? cache_write=? reasoning=?");
}

// A count no request could have is unknown: input plus the cache counters
// never wraps into a negative total.
TEST(AnthropicStreamDecoderTest, AbsurdUsageIsUnknownNotWrapped) {
  std::string body = MessageStart(R"({"input_tokens":9223372036854775807,)"
                                  R"("cache_creation_input_tokens":1,)"
                                  R"("cache_read_input_tokens":0})") +
                     Text(0, "hi") + MessageDelta("end_turn", R"({"output_tokens":1})") +
                     MessageStop();
  EXPECT_EQ(EventTexts(DecodeBody(body))[2],
            "usage in=? out=1 cache_read=0 cache_write=1 reasoning=?");
}

TEST(AnthropicStreamDecoderTest, OutputIsUnknownWithoutMessageDeltaUsage) {
  std::string body = MessageStart() + Text(0, "hi") + MessageDelta("end_turn") + MessageStop();
  EXPECT_EQ(EventTexts(DecodeBody(body))[2],
            "usage in=5 out=? cache_read=0 cache_write=0 reasoning=?");
}

TEST(AnthropicStreamDecoderTest, EofAfterMessageDeltaIsStillPrematureEof) {
  std::string body =
      MessageStart() + Text(0, "hi") + MessageDelta("end_turn", R"({"output_tokens":4})");
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start msg_S claude-s", "text 0 [hi]",
                          "usage in=5 out=4 cache_read=0 cache_write=0 reasoning=?",
                          "error premature_eof retryable after_output http=0 type= code= "
                          "retry_after=?"));
}

TEST(AnthropicStreamDecoderTest, MalformedEventIsARetryableServerError) {
  std::string body = MessageStart() + "event: content_block_delta\ndata: {\"type\":\n\n";
  std::vector<ProviderEvent> events = DecodeBody(body);
  ExpectStreamInvariants(events);
  const auto& error = std::get<ErrorEvent>(events.back());
  EXPECT_EQ(error.kind, ErrorKind::kServer);
  EXPECT_TRUE(error.retryable);
  EXPECT_THAT(error.message, HasSubstr("malformed event"));
}

TEST(AnthropicStreamDecoderTest, ErrorEventWithoutJsonKeepsItsText) {
  std::vector<ProviderEvent> events = DecodeBody("event: error\ndata: upstream reset\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(events[0]).message, "upstream reset");
}

TEST(AnthropicStreamDecoderTest, FailAfterOutputMarksIt) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  http::SseDecoder sse;
  sse.Feed(MessageStart() + BlockStart(0, R"({"type":"text","text":"Hi"})"),
           [&](const http::SseFrame& frame) { decoder.Decode(frame, &events); });
  ErrorEvent cancelled;
  cancelled.kind = ErrorKind::kCancelled;
  decoder.Fail(cancelled, &events);
  decoder.Fail(cancelled, &events);  // no second terminal event
  decoder.Finish(&events);
  EXPECT_THAT(EventTexts(events),
              ElementsAre("start msg_S claude-s", "text 0 [Hi]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
  EXPECT_TRUE(decoder.done());
}

TEST(AnthropicStreamDecoderTest, NonStreamedMessageGivesTheSameEvents) {
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(
      R"({"id":"msg_J","type":"message","role":"assistant","model":"claude-j",)"
      R"("content":[{"type":"thinking","thinking":"Plan.","signature":"SJ"},)"
      R"({"type":"text","text":"Reading."},)"
      R"({"type":"tool_use","id":"toolu_J","name":"read_file","input":{"path":"a"}},)"
      R"({"type":"tool_use","id":"toolu_K","name":"list_dir","input":{}}],)"
      R"("stop_reason":"tool_use","stop_sequence":null,)"
      R"("usage":{"input_tokens":10,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":20}})",
      &events);
  ExpectStreamInvariants(events);
  EXPECT_THAT(
      EventTexts(events),
      ElementsAre("start msg_J claude-j", "reasoning 0 [Plan.]",
                  "reasoning_end 0 opaque=anthropic/thinking_signature/5 [SJ]", "text 1 [Reading.]",
                  "call_start 0 toolu_J read_file", "call_delta 0 [{\"path\":\"a\"}]",
                  "call_start 1 toolu_K list_dir", "call_delta 1 [{}]",
                  "call_end 0 toolu_J read_file [{\"path\":\"a\"}] complete",
                  "call_end 1 toolu_K list_dir [{}] complete",
                  "usage in=15 out=20 cache_read=3 cache_write=2 reasoning=?",
                  "finish tool_calls raw=tool_use"));
}

TEST(AnthropicStreamDecoderTest, NonStreamedErrorAndGarbage) {
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed(
        R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", &events);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(std::get<ErrorEvent>(events[0]).kind, ErrorKind::kOverloaded);
  }
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed("not json", &events);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_THAT(std::get<ErrorEvent>(events[0]).message, HasSubstr("not valid JSON"));
  }
  {
    StreamDecoder decoder;
    std::vector<ProviderEvent> events;
    decoder.DecodeNonStreamed(R"({"id":"msg_x"})", &events);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_THAT(std::get<ErrorEvent>(events[0]).message, HasSubstr("no \"content\""));
  }
}

// A response may carry at most 256 tool calls, streamed or in a whole body.
TEST(AnthropicStreamDecoderTest, MoreThan256ToolCallsEndTheResponse) {
  auto call = [](int i) {
    return absl::StrCat(R"({"type":"tool_use","id":"t)", i, R"(","name":"f","input":{}})");
  };
  std::string body = MessageStart();
  std::string content;
  for (int i = 0; i < 300; ++i) {
    body += BlockStart(i, call(i)) + BlockStop(i) + Text(1000 + i, "after");
    absl::StrAppend(&content, i > 0 ? "," : "", call(i), R"(,{"type":"text","text":"after"})");
  }
  body += MessageDelta("tool_use") + MessageStop();
  ExpectTooManyToolCalls(DecodeBody(body));
  StreamDecoder decoder;
  std::vector<ProviderEvent> events;
  decoder.DecodeNonStreamed(
      absl::StrCat(R"({"id":"msg_N","type":"message","role":"assistant","model":"c","content":[)",
                   content, R"(],"stop_reason":"tool_use","usage":{"output_tokens":1}})"),
      &events);
  ExpectTooManyToolCalls(events);
}

}  // namespace
}  // namespace raw::providers::anthropic
