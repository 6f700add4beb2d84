// OpenAiResponsesProvider end to end through FakeHttpClient: the request it
// sends, streamed events, the HTTP error responses that apply to this API,
// transport failures and cancellation; and the factory entry.
#include "daemon/providers/openai_responses/openai_responses_provider.h"

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/providers/openai_responses/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/daemon/providers/openai_responses/fixture_support.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers::openai_responses {
namespace {

using ::raw::providers::openai_responses::testing::ReadFixture;
using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

config::ModelConfig Model() {
  config::ModelConfig model;
  model.name = "gpt";
  model.provider = "openai";
  model.method = config::kMethodOpenAiResponses;
  model.model_id = "gpt-test";
  model.base_url = "http://127.0.0.1:9/v1/";
  model.max_output_tokens = 900;
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

TEST(OpenAiResponsesProviderTest, SendsTheRequestAndStreamsEvents) {
  FakeHttpClient http;
  http.Enqueue(Sse(SplitEvery(ReadFixture("02-parallel-tools"), 7)));
  OpenAiResponsesProvider provider(Model(), http, "sk-test", "cache-1");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());

  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://127.0.0.1:9/v1/responses");
  EXPECT_THAT(sent.headers, UnorderedElementsAre(Pair("Authorization", "Bearer sk-test"),
                                                 Pair("Content-Type", "application/json"),
                                                 Pair("Accept", "text/event-stream")));
  EXPECT_EQ(sent.body, BuildRequestBody(Request(), Model(), "cache-1"));
  EXPECT_THAT(sent.body, HasSubstr(R"("store":false)"));
  EXPECT_THAT(sent.body, HasSubstr(R"("max_output_tokens":900)"));
  EXPECT_THAT(sent.body, HasSubstr(R"("prompt_cache_key":"cache-1")"));
  EXPECT_EQ(sent.idle_timeout_ms, 1234);
  EXPECT_EQ(sent.connect_timeout_ms, 567);

  ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start resp_T2 gpt-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=completed");
  EXPECT_EQ(sink.events.size(), 11u);
}

TEST(OpenAiResponsesProviderTest, FactoryEntryPassesKeyAndCacheKey) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("01-text")}));
  http.Enqueue(Sse({ReadFixture("01-text")}));
  ProviderOptions options;
  options.prompt_cache_key = "ws/session-1";
  std::unique_ptr<Provider> with_key = MakeOpenAiResponsesProvider(Model(), http, "k1", options);
  std::unique_ptr<Provider> without_key = MakeOpenAiResponsesProvider(Model(), http, "", {});
  RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(with_key->Stream(Request(), sink, cancel).ok());
  ASSERT_TRUE(without_key->Stream(Request(), sink, cancel).ok());
  std::vector<http::HttpRequest> sent = http.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(http::FindHeader(sent[0].headers, "authorization"), "Bearer k1");
  EXPECT_THAT(sent[0].body, HasSubstr(R"("prompt_cache_key":"ws/session-1")"));
  EXPECT_EQ(http::FindHeader(sent[1].headers, "authorization"), "");
  EXPECT_THAT(sent[1].body, Not(HasSubstr("prompt_cache_key")));
}

// The http/* error rows that apply to OpenAI's error bodies.
TEST(OpenAiResponsesProviderTest, HttpErrorResponses) {
  struct Case {
    const char* name;
    int status;
    http::Headers headers;
    std::string body;
    std::string event;
    std::string message;
    absl::StatusCode code;
  };
  Case cases[] = {
      {"429-retry-after",
       429,
       {{"retry-after", "2"}, {"content-type", "application/json"}},
       R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
       "error rate_limited retryable before_output http=429 type=requests "
       "code=rate_limit_exceeded retry_after=2000",
       "HTTP 429: Rate limit reached", absl::StatusCode::kResourceExhausted},
      {"429-quota",
       429,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"You exceeded your current quota, please check your plan.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})",
       "error billing final before_output http=429 type=insufficient_quota "
       "code=insufficient_quota retry_after=?",
       "HTTP 429: You exceeded your current quota, please check your plan.",
       absl::StatusCode::kResourceExhausted},
      {"400-context",
       400,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}})",
       "error context_overflow final before_output http=400 type=invalid_request_error "
       "code=context_length_exceeded retry_after=?",
       "HTTP 400: Your input exceeds the context window of this model.",
       absl::StatusCode::kOutOfRange},
      {"502-html",
       502,
       {{"content-type", "text/html"}},
       "<html>Bad gateway</html>",
       "error server retryable before_output http=502 type= code= retry_after=?",
       "HTTP 502: Bad gateway", absl::StatusCode::kUnavailable},
      {"500-should-not-retry",
       500,
       {{"x-should-retry", "false"}},
       R"({"error":{"message":"boom","type":"server_error","param":null,"code":null}})",
       "error server final before_output http=500 type=server_error code= retry_after=?",
       "HTTP 500: boom", absl::StatusCode::kUnavailable},
      {"503-overloaded",
       503,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"The server is overloaded.","type":"server_error","code":"server_is_overloaded"}})",
       "error overloaded retryable before_output http=503 type=server_error "
       "code=server_is_overloaded retry_after=?",
       "HTTP 503: The server is overloaded.", absl::StatusCode::kUnavailable},
      {"401-bad-key",
       401,
       {{"content-type", "application/json"}, {"x-request-id", "req_9"}},
       R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})",
       "error auth final before_output http=401 type=invalid_request_error "
       "code=invalid_api_key retry_after=?",
       "HTTP 401: Incorrect API key provided", absl::StatusCode::kUnauthenticated},
  };
  for (const Case& c : cases) {
    FakeHttpClient http;
    FakeHttpResponse response = Sse(SplitEvery(c.body, 5), absl::OkStatus(), c.status);
    response.headers = c.headers;
    http.Enqueue(response);
    OpenAiResponsesProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status, absl::Status(c.code, c.message)) << c.name;
    // No Start: the request failed before a body.
    EXPECT_THAT(sink.texts(), ElementsAre(c.event)) << c.name;
    ASSERT_EQ(sink.events.size(), 1u);
    EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).message, c.message) << c.name;
  }
}

TEST(OpenAiResponsesProviderTest, HttpErrorKeepsTheRequestId) {
  FakeHttpClient http;
  FakeHttpResponse response =
      Sse({R"({"error":{"message":"nope","type":"invalid_request_error"}})"}, absl::OkStatus(),
          404);
  response.headers = {{"Content-Type", "application/json"}, {"x-request-id", "req_9"}};
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_EQ(provider.Stream(Request(), sink, cancel), absl::NotFoundError("HTTP 404: nope"));
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).request_id, "req_9");
}

TEST(OpenAiResponsesProviderTest, MidstreamErrorGetsTheRequestId) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"X-Request-Id", "req_5"}};
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status, absl::UnavailableError("The server is overloaded. Please retry."));
  ExpectStreamInvariants(sink.events);
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(OpenAiResponsesProviderTest, CancellationFromTheSinkEndsTheStream) {
  FakeHttpClient http;
  std::string body = ReadFixture("01-text");
  size_t cut = body.find("\n\n", body.find("\"delta\":\"Hello\"")) + 2;
  FakeHttpResponse response = Sse({body.substr(0, cut), body.substr(cut)});
  response.hold_after_chunks = 1;
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  sink.on_event = [&cancel](const ProviderEvent& event) {
    if (std::holds_alternative<TextDeltaEvent>(event)) cancel.Cancel("user interrupt");
  };
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(),
              ElementsAre("start resp_T1 gpt-test", "text 0 [Hello]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
  EXPECT_THAT(std::get<ErrorEvent>(sink.events.back()).message, HasSubstr("user interrupt"));
}

TEST(OpenAiResponsesProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({});
  response.hold_after_chunks = 0;
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, "k");
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

TEST(OpenAiResponsesProviderTest, AlreadyCancelledSendsNothing) {
  FakeHttpClient http;
  OpenAiResponsesProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(provider.Stream(Request(), sink, cancel).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(http.requests().empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kCancelled);
}

TEST(OpenAiResponsesProviderTest, TransportOutcomes) {
  struct Case {
    const char* name;
    FakeHttpResponse response;
    std::string last_event;
    absl::StatusCode code;
  };
  std::string cutoff = ReadFixture("06-cutoff");
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
      {"clean EOF without a terminal event", Sse({cutoff}),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"cut off after the terminal event",
       Sse({ReadFixture("01-text")}, absl::UnavailableError("reset")),
       "finish stop raw=completed", absl::StatusCode::kOk},
  };
  for (Case& c : cases) {
    FakeHttpClient http;
    http.Enqueue(c.response);
    OpenAiResponsesProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    ASSERT_FALSE(sink.events.empty()) << c.name;
    EXPECT_EQ(sink.texts().back(), c.last_event) << c.name;
    ExpectStreamInvariants(sink.events);
  }
}

TEST(OpenAiResponsesProviderTest, StopsReadingAfterTheTerminalEvent) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("01-text"), "data: {\"never\":\"read\"}\n\n"});
  response.hold_after_chunks = 2;  // the server keeps the connection open
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_EQ(sink.texts().back(), "finish stop raw=completed");
}

TEST(OpenAiResponsesProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(SplitEvery(
      R"({"id":"resp_J","model":"llama","status":"completed","output":[{"id":"m","type":"message","content":[{"type":"output_text","text":"Hi there"}]}],"usage":{"input_tokens":3,"output_tokens":2}})",
      5));
  response.headers = {{"Content-Type", "application/json; charset=utf-8"}};
  http.Enqueue(response);
  OpenAiResponsesProvider provider(Model(), http, std::nullopt);
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(sink.texts(), ElementsAre("start resp_J llama", "text 0 [Hi there]",
                                        "usage in=3 out=2 cache_read=? cache_write=? reasoning=?",
                                        "finish stop raw=completed"));
}

TEST(OpenAiResponsesProviderTest, EndpointJoinsBaseUrl) {
  FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.openai.com/v1";
  EXPECT_EQ(OpenAiResponsesProvider(model, http, std::nullopt).endpoint(),
            "https://api.openai.com/v1/responses");
  model.base_url = "http://localhost:11434/v1//";
  EXPECT_EQ(OpenAiResponsesProvider(model, http, std::nullopt).endpoint(),
            "http://localhost:11434/v1/responses");
}

}  // namespace
}  // namespace raw::providers::openai_responses
