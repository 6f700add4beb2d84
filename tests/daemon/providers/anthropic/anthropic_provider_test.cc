// AnthropicProvider end to end through FakeHttpClient: the request it sends,
// streamed events, the HTTP error responses of the API, transport failures,
// cancellation and the replay of a decoded answer in the next request.
#include "daemon/providers/anthropic/anthropic_provider.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/anthropic/fixture_reader.h"
#include "tests/daemon/providers/provider_test_harness.h"

namespace raw::providers::anthropic {
namespace {

namespace harness = ::raw::providers::testing;
using ::raw::providers::anthropic::testing::ReadFixture;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

config::ModelConfig Model() {
  return harness::TestModel("claude", "anthropic", config::kMethodAnthropicMessages, "claude-test",
                            "http://127.0.0.1:9/v1/");
}

ModelRequest Request() { return harness::HelloRequest(); }

std::unique_ptr<Provider> Make(http::HttpClient& http) {
  return std::make_unique<AnthropicProvider>(Model(), http, "k");
}

TEST(AnthropicProviderTest, SendsTheRequestAndStreamsEvents) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse(SplitEvery(ReadFixture("02-parallel-tools"), 7)));
  AnthropicProvider provider(Model(), http, "sk-ant-test", CacheRetention::k1h);
  harness::RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());

  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://127.0.0.1:9/v1/messages");
  EXPECT_THAT(sent.headers, UnorderedElementsAre(Pair("x-api-key", "sk-ant-test"),
                                                 Pair("anthropic-version", "2023-06-01"),
                                                 Pair("content-type", "application/json"),
                                                 Pair("accept", "text/event-stream")));
  EXPECT_EQ(sent.body, BuildRequestBody(Request(), Model(), CacheRetention::k1h));
  EXPECT_THAT(sent.body, HasSubstr(R"("cache_control":{"type":"ephemeral","ttl":"1h"})"));
  EXPECT_EQ(sent.idle_timeout_ms, 1234);
  EXPECT_EQ(sent.connect_timeout_ms, 567);

  harness::ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start msg_T2 claude-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=tool_use");
}

TEST(AnthropicProviderTest, FactoryTakesTheRetentionAndNoKeyMeansNoHeader) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  CancelToken cancel;
  for (const char* retention : {"1h", "5m", "bogus"}) {
    std::unique_ptr<Provider> provider = MakeAnthropicProvider(Model(), http, "", {}, retention);
    harness::RecordingSink sink;
    ASSERT_TRUE(provider->Stream(Request(), sink, cancel).ok()) << retention;
  }
  std::vector<http::HttpRequest> sent = http.requests();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_THAT(sent[0].body, HasSubstr(R"("cache_control":{"type":"ephemeral","ttl":"1h"})"));
  EXPECT_THAT(sent[1].body, HasSubstr(R"("cache_control":{"type":"ephemeral"},)"));
  EXPECT_THAT(sent[2].body, HasSubstr(R"("cache_control":{"type":"ephemeral"},)"));
  for (const auto& [name, value] : sent[0].headers) EXPECT_NE(name, "x-api-key");
}

TEST(AnthropicProviderTest, DecodedAnswerIsReplayedInTheNextRequest) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadFixture("02-parallel-tools")}));
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  AnthropicProvider provider(Model(), http, "k");
  harness::RecordingSink sink;
  CancelToken cancel;
  ModelRequest request = Request();
  ASSERT_TRUE(provider.Stream(request, sink, cancel).ok());

  // Assemble the assistant turn as the loop does.
  events::AssistantTurn turn;
  for (const ProviderEvent& event : sink.events) {
    if (auto* r = std::get_if<ReasoningDeltaEvent>(&event)) turn.reasoning += r->text;
    if (auto* t = std::get_if<TextDeltaEvent>(&event)) turn.text += t->text;
    if (auto* e = std::get_if<ReasoningEndEvent>(&event); e && e->opaque) {
      turn.opaque.push_back(*e->opaque);
    }
    if (auto* c = std::get_if<ToolCallEndEvent>(&event)) {
      turn.tool_calls.push_back({c->call_id, c->name, c->arguments});
    }
  }
  request.messages.push_back(turn);
  for (const char* id : {"toolu_01A", "toolu_01B", "toolu_01C"}) {
    request.messages.push_back(events::ToolOutcome{id, "x", "out", false});
  }
  harness::RecordingSink second;
  ASSERT_TRUE(provider.Stream(request, second, cancel).ok());
  EXPECT_THAT(
      http.requests()[1].body,
      HasSubstr(
          R"({"role":"assistant","content":[)"
          R"({"type":"thinking","thinking":"Need both files.","signature":"EqQBCkYIARgCsig"},)"
          R"({"type":"tool_use","id":"toolu_01A","name":"read_file","input":{"path":"a.txt"}},)"
          R"({"type":"tool_use","id":"toolu_01B","name":"read_file","input":{"path":"b.txt"}},)"
          R"({"type":"tool_use","id":"toolu_01C","name":"list_dir","input":{}}]},)"
          R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A")"));
}

// The HTTP error rows of the reference table that apply to this API.
TEST(AnthropicProviderTest, HttpErrors) {
  std::vector<harness::HttpErrorCase> cases = {
      {"429-retry-after",
       429,
       {{"retry-after", "2"}, {"content-type", "application/json"}, {"request-id", "req_R"}},
       R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"},"request_id":"req_R"})",
       "error rate_limited retryable before_output http=429 type=rate_limit_error code= "
       "retry_after=2000",
       "HTTP 429: Number of requests has exceeded your rate limit",
       absl::StatusCode::kResourceExhausted,
       "req_R"},
      {"429-spend-limit",
       429,
       {{"content-type", "application/json"}},
       R"({"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_S"})",
       "error billing final before_output http=429 type=rate_limit_error code= retry_after=?",
       "HTTP 429: Spend limit reached",
       absl::StatusCode::kResourceExhausted,
       "req_S"},
      {"529-overloaded",
       529,
       {{"request-id", "req_T"}},
       R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_T"})",
       "error overloaded retryable before_output http=529 type=overloaded_error code= "
       "retry_after=?",
       "HTTP 529: Overloaded",
       absl::StatusCode::kUnavailable,
       "req_T"},
      {"400-context",
       400,
       {},
       R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"},"request_id":"req_U"})",
       "error context_overflow final before_output http=400 type=invalid_request_error code= "
       "retry_after=?",
       "HTTP 400: prompt is too long: 210000 tokens > 200000 maximum",
       absl::StatusCode::kOutOfRange,
       "req_U"},
      {"401",
       401,
       {},
       R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})",
       "error auth final before_output http=401 type=authentication_error code= retry_after=?",
       "HTTP 401: invalid x-api-key",
       absl::StatusCode::kUnauthenticated,
       ""},
      {"402",
       402,
       {},
       R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}})",
       "error billing final before_output http=402 type=billing_error code= retry_after=?",
       "HTTP 402: Your credit balance is too low",
       absl::StatusCode::kResourceExhausted,
       ""},
      {"502-html",
       502,
       {{"content-type", "text/html"}},
       "<html>Bad gateway</html>",
       "error server retryable before_output http=502 type= code= retry_after=?",
       "HTTP 502: Bad gateway",
       absl::StatusCode::kUnavailable,
       ""},
      {"500-should-not-retry",
       500,
       {{"x-should-retry", "false"}},
       R"({"type":"error","error":{"type":"api_error","message":"boom"}})",
       "error server final before_output http=500 type=api_error code= retry_after=?",
       "HTTP 500: boom",
       absl::StatusCode::kUnavailable,
       ""},
  };
  harness::ExpectHttpErrors(Make, cases);
}

TEST(AnthropicProviderTest, MidstreamErrorGetsTheRequestIdHeader) {
  harness::FakeHttpResponse response = harness::Sse({ReadFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"Request-Id", "req_5"}};
  harness::RecordingSink sink;
  absl::Status status = harness::StreamOnce(Make, response, sink);
  EXPECT_EQ(status, absl::UnavailableError("Overloaded"));
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(AnthropicProviderTest, CancellationFromTheSinkEndsTheStream) {
  std::string body = ReadFixture("01-text");
  size_t delta = body.find("event: content_block_delta");
  size_t second_delta = body.find("event: content_block_delta", delta + 1);
  harness::FakeHttpResponse response =
      harness::Sse({body.substr(0, second_delta), body.substr(second_delta)});
  response.hold_after_chunks = 1;
  harness::ExpectCancelFromTheSink(
      Make, response,
      {"start msg_T1 claude-test", "text 0 [Hello]",
       "error cancelled final after_output http=0 type= code= retry_after=?"});
}

TEST(AnthropicProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  harness::ExpectCancelFromAnotherThreadWhileWaiting(Make);
}

TEST(AnthropicProviderTest, AlreadyCancelledSendsNothing) {
  harness::ExpectAlreadyCancelledSendsNothing(Make);
}

TEST(AnthropicProviderTest, TransportOutcomes) {
  std::string text = ReadFixture("01-text");
  std::string before_stop = text.substr(0, text.find("event: message_stop"));
  std::vector<harness::TransportCase> cases =
      harness::CommonTransportCases(ReadFixture("06-cutoff"), "clean EOF without message_stop");
  cases.push_back({"cut off after message_delta",
                   harness::Sse({before_stop}, absl::UnavailableError("reset")),
                   "error premature_eof retryable after_output http=0 type= code= retry_after=?",
                   absl::StatusCode::kUnavailable});
  harness::ExpectTransportOutcomes(Make, cases);
}

TEST(AnthropicProviderTest, StopsReadingAfterMessageStop) {
  harness::ExpectStopsReadingAfterTheTerminalEvent(
      Make, ReadFixture("01-text"), "event: ping\ndata: {}\n\n", "finish stop raw=end_turn");
}

TEST(AnthropicProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  harness::ExpectJsonBodyDecodedWhole(
      Make,
      R"({"id":"msg_J","type":"message","role":"assistant","model":"claude-j","content":[{"type":"text","text":"Hi there"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}})",
      "application/json",
      {"start msg_J claude-j", "text 0 [Hi there]",
       "usage in=? out=2 cache_read=? cache_write=? reasoning=?", "finish stop raw=end_turn"});
}

// Redacted thinking is kept with the message and sent back with every later
// request: its data counts against the cap, whether its block closed (and
// its data was emitted) or is still open (and held).
TEST(AnthropicProviderTest, RedactedThinkingCountsAgainstTheByteCap) {
  auto event = [](const std::string& type, const std::string& fields) {
    return absl::StrCat("event: ", type, "\ndata: {\"type\":\"", type, "\",", fields, "}\n\n");
  };
  std::string start =
      event("message_start", R"("message":{"id":"msg_R","model":"claude-r","usage":{}})");
  std::vector<std::string> closed = {start};
  std::vector<std::string> open = {start};
  for (int i = 0; i < 20; ++i) {
    std::string block_start = event(
        "content_block_start",
        absl::StrCat(R"("index":)", i, R"(,"content_block":{"type":"redacted_thinking","data":")",
                     std::string(300, 'r'), R"("})"));
    open.push_back(block_start);
    closed.push_back(block_start + event("content_block_stop", absl::StrCat(R"("index":)", i)));
  }
  auto make = [](http::HttpClient& http) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    return std::make_unique<AnthropicProvider>(model, http, "k");
  };
  harness::ExpectHeldBytesCountAgainstTheCap(make, closed);
  harness::ExpectHeldBytesCountAgainstTheCap(make, open);
}

// Blocks opened and never stopped carry no text, yet each is kept until its
// stop: they count against the cap, so that a stream of empty blocks cannot
// grow the decoder's memory without bound.
TEST(AnthropicProviderTest, OpenEmptyBlocksCountAgainstTheByteCap) {
  std::vector<std::string> chunks = {
      "event: message_start\ndata: "
      R"({"type":"message_start","message":{"id":"msg_E","model":"claude-e","usage":{}}})"
      "\n\n"};
  for (int i = 0; i < 100; ++i) {
    chunks.push_back(absl::StrCat(
        "event: content_block_start\ndata: ", R"({"type":"content_block_start","index":)", i,
        R"(,"content_block":{"type":"text","text":""}})", "\n\n"));
  }
  auto make = [](http::HttpClient& http) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    return std::make_unique<AnthropicProvider>(model, http, "k");
  };
  harness::ExpectHeldBytesCountAgainstTheCap(make, chunks);
}

TEST(AnthropicProviderTest, EndpointJoinsBaseUrl) {
  harness::FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.anthropic.com/v1";
  EXPECT_EQ(AnthropicProvider(model, http, "").endpoint(), "https://api.anthropic.com/v1/messages");
  model.base_url = "http://localhost:8080//";
  EXPECT_EQ(AnthropicProvider(model, http, "").endpoint(), "http://localhost:8080/messages");
}

// A tool call's name and id count against the cap.
TEST(AnthropicProviderTest, ToolCallNamesAndIdsCountAgainstTheByteCap) {
  auto make = [](http::HttpClient& http) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    return std::make_unique<AnthropicProvider>(model, http, "k");
  };
  auto start = [](const std::string& id, const std::string& name) {
    return absl::StrCat(
        "event: message_start\ndata: "
        R"({"type":"message_start","message":{"id":"msg_T","model":"claude-t","usage":{}}})"
        "\n\nevent: content_block_start\ndata: "
        R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":")",
        id, R"(","name":")", name, R"(","input":{}}})", "\n\n");
  };
  harness::ExpectHeldBytesCountAgainstTheCap(make, {start("toolu_1", std::string(2000, 'n'))});
  harness::ExpectHeldBytesCountAgainstTheCap(make, {start(std::string(2000, 'i'), "f")});
}

}  // namespace
}  // namespace raw::providers::anthropic
