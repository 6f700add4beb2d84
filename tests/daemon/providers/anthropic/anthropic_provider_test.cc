// AnthropicProvider end to end through FakeHttpClient: the request it sends,
// streamed events, the HTTP error responses of the API, transport failures,
// cancellation and the replay of a decoded answer in the next request.
#include "daemon/providers/anthropic/anthropic_provider.h"

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/providers/anthropic/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/anthropic/fixture_reader.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers::anthropic {
namespace {

using ::raw::providers::anthropic::testing::ReadFixture;
using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

config::ModelConfig Model() {
  config::ModelConfig model;
  model.name = "claude";
  model.provider = "anthropic";
  model.method = config::kMethodAnthropicMessages;
  model.model_id = "claude-test";
  model.base_url = "http://127.0.0.1:9/v1/";
  model.idle_timeout_ms = 1234;
  model.connect_timeout_ms = 567;
  return model;
}

ModelRequest Request() {
  ModelRequest request;
  request.system_prompt = "sys";
  request.messages = {events::UserText{"hello"}};
  return request;
}

FakeHttpResponse Sse(std::vector<std::string> chunks, absl::Status end = absl::OkStatus(),
                     int status = 200) {
  FakeHttpResponse response;
  response.status = status;
  response.chunks = std::move(chunks);
  response.end_status = std::move(end);
  return response;
}

class RecordingSink : public ProviderEventSink {
 public:
  void OnEvent(const ProviderEvent& event) override {
    events.push_back(event);
    if (on_event) on_event(event);
  }
  std::vector<std::string> texts() const { return EventTexts(events); }

  std::vector<ProviderEvent> events;
  std::function<void(const ProviderEvent&)> on_event;
};

TEST(AnthropicProviderTest, SendsTheRequestAndStreamsEvents) {
  FakeHttpClient http;
  http.Enqueue(Sse(SplitEvery(ReadFixture("02-parallel-tools"), 7)));
  AnthropicProvider provider(Model(), http, "sk-ant-test", CacheRetention::k1h);
  RecordingSink sink;
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

  ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start msg_T2 claude-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=tool_use");
}

TEST(AnthropicProviderTest, FactoryTakesTheRetentionAndNoKeyMeansNoHeader) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("01-text")}));
  http.Enqueue(Sse({ReadFixture("01-text")}));
  http.Enqueue(Sse({ReadFixture("01-text")}));
  CancelToken cancel;
  for (const char* retention : {"1h", "5m", "bogus"}) {
    std::unique_ptr<Provider> provider = MakeAnthropicProvider(Model(), http, "", {}, retention);
    RecordingSink sink;
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
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("02-parallel-tools")}));
  http.Enqueue(Sse({ReadFixture("01-text")}));
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
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
  RecordingSink second;
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
  struct Case {
    const char* name;
    int status;
    http::Headers headers;
    std::string body;
    std::string expected;  // EventText
    std::string message;
    std::string request_id;
    absl::StatusCode code;
  };
  Case cases[] = {
      {"429-retry-after",
       429,
       {{"retry-after", "2"}, {"content-type", "application/json"}, {"request-id", "req_R"}},
       R"({"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"},"request_id":"req_R"})",
       "error rate_limited retryable before_output http=429 type=rate_limit_error code= "
       "retry_after=2000",
       "HTTP 429: Number of requests has exceeded your rate limit",
       "req_R",
       absl::StatusCode::kResourceExhausted},
      {"429-spend-limit",
       429,
       {{"content-type", "application/json"}},
       R"({"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_S"})",
       "error billing final before_output http=429 type=rate_limit_error code= retry_after=?",
       "HTTP 429: Spend limit reached",
       "req_S",
       absl::StatusCode::kResourceExhausted},
      {"529-overloaded",
       529,
       {{"request-id", "req_T"}},
       R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_T"})",
       "error overloaded retryable before_output http=529 type=overloaded_error code= "
       "retry_after=?",
       "HTTP 529: Overloaded",
       "req_T",
       absl::StatusCode::kUnavailable},
      {"400-context",
       400,
       {},
       R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"},"request_id":"req_U"})",
       "error context_overflow final before_output http=400 type=invalid_request_error code= "
       "retry_after=?",
       "HTTP 400: prompt is too long: 210000 tokens > 200000 maximum",
       "req_U",
       absl::StatusCode::kOutOfRange},
      {"401",
       401,
       {},
       R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})",
       "error auth final before_output http=401 type=authentication_error code= retry_after=?",
       "HTTP 401: invalid x-api-key",
       "",
       absl::StatusCode::kUnauthenticated},
      {"402",
       402,
       {},
       R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}})",
       "error billing final before_output http=402 type=billing_error code= retry_after=?",
       "HTTP 402: Your credit balance is too low",
       "",
       absl::StatusCode::kResourceExhausted},
      {"502-html",
       502,
       {{"content-type", "text/html"}},
       "<html>Bad gateway</html>",
       "error server retryable before_output http=502 type= code= retry_after=?",
       "HTTP 502: Bad gateway",
       "",
       absl::StatusCode::kUnavailable},
      {"500-should-not-retry",
       500,
       {{"x-should-retry", "false"}},
       R"({"type":"error","error":{"type":"api_error","message":"boom"}})",
       "error server final before_output http=500 type=api_error code= retry_after=?",
       "HTTP 500: boom",
       "",
       absl::StatusCode::kUnavailable},
  };
  for (const Case& c : cases) {
    FakeHttpClient http;
    FakeHttpResponse response = Sse(SplitEvery(c.body, 5), absl::OkStatus(), c.status);
    response.headers = c.headers;
    http.Enqueue(response);
    AnthropicProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status.code(), c.code) << c.name;
    EXPECT_EQ(status.message(), c.message) << c.name;
    ASSERT_EQ(sink.events.size(), 1u) << c.name;
    EXPECT_EQ(sink.texts()[0], c.expected) << c.name;
    const auto& error = std::get<ErrorEvent>(sink.events[0]);
    EXPECT_EQ(error.message, c.message) << c.name;
    EXPECT_EQ(error.request_id, c.request_id) << c.name;
  }
}

TEST(AnthropicProviderTest, MidstreamErrorGetsTheRequestIdHeader) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"Request-Id", "req_5"}};
  http.Enqueue(response);
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status, absl::UnavailableError("Overloaded"));
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(AnthropicProviderTest, CancellationFromTheSinkEndsTheStream) {
  FakeHttpClient http;
  std::string body = ReadFixture("01-text");
  size_t delta = body.find("event: content_block_delta");
  size_t second_delta = body.find("event: content_block_delta", delta + 1);
  FakeHttpResponse response = Sse({body.substr(0, second_delta), body.substr(second_delta)});
  response.hold_after_chunks = 1;
  http.Enqueue(response);
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  sink.on_event = [&cancel](const ProviderEvent& event) {
    if (std::holds_alternative<TextDeltaEvent>(event)) cancel.Cancel("user interrupt");
  };
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(),
              ElementsAre("start msg_T1 claude-test", "text 0 [Hello]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
  EXPECT_THAT(std::get<ErrorEvent>(sink.events.back()).message, HasSubstr("user interrupt"));
}

TEST(AnthropicProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({});
  response.hold_after_chunks = 0;
  http.Enqueue(response);
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status;
  std::thread streamer([&] { status = provider.Stream(Request(), sink, cancel); });
  http.WaitUntilHeld();
  cancel.Cancel();
  streamer.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(),
              ElementsAre("error cancelled final before_output http=0 type= code= retry_after=?"));
}

TEST(AnthropicProviderTest, AlreadyCancelledSendsNothing) {
  FakeHttpClient http;
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(provider.Stream(Request(), sink, cancel).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(http.requests().empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kCancelled);
}

TEST(AnthropicProviderTest, TransportOutcomes) {
  struct Case {
    const char* name;
    FakeHttpResponse response;
    std::string last_event;
    absl::StatusCode code;
  };
  std::string cutoff = ReadFixture("06-cutoff");
  std::string text = ReadFixture("01-text");
  std::string before_stop = text.substr(0, text.find("event: message_stop"));
  Case cases[] = {
      {"connection refused", Sse({}, absl::UnavailableError("refused"), /*status=*/0),
       "error network retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"idle timeout", Sse({}, absl::DeadlineExceededError("idle")),
       "error timeout retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kDeadlineExceeded},
      {"cut off mid-body", Sse({cutoff}, absl::UnavailableError("reset")),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"clean EOF without message_stop", Sse({cutoff}),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"cut off after message_delta", Sse({before_stop}, absl::UnavailableError("reset")),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
  };
  for (Case& c : cases) {
    FakeHttpClient http;
    http.Enqueue(c.response);
    AnthropicProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    ASSERT_FALSE(sink.events.empty()) << c.name;
    EXPECT_EQ(sink.texts().back(), c.last_event) << c.name;
    ExpectStreamInvariants(sink.events);
  }
}

TEST(AnthropicProviderTest, StopsReadingAfterMessageStop) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("01-text"), "event: ping\ndata: {}\n\n"});
  response.hold_after_chunks = 2;  // the server keeps the connection open
  http.Enqueue(response);
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_EQ(sink.texts().back(), "finish stop raw=end_turn");
}

TEST(AnthropicProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(SplitEvery(
      R"({"id":"msg_J","type":"message","role":"assistant","model":"claude-j","content":[{"type":"text","text":"Hi there"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}})",
      5));
  response.headers = {{"Content-Type", "application/json"}};
  http.Enqueue(response);
  AnthropicProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(sink.texts(), ElementsAre("start msg_J claude-j", "text 0 [Hi there]",
                                        "usage in=? out=2 cache_read=? cache_write=? reasoning=?",
                                        "finish stop raw=end_turn"));
}

TEST(AnthropicProviderTest, EndpointJoinsBaseUrl) {
  FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.anthropic.com/v1";
  EXPECT_EQ(AnthropicProvider(model, http, "").endpoint(), "https://api.anthropic.com/v1/messages");
  model.base_url = "http://localhost:8080//";
  EXPECT_EQ(AnthropicProvider(model, http, "").endpoint(), "http://localhost:8080/messages");
}

}  // namespace
}  // namespace raw::providers::anthropic
