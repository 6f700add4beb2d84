// OpenAiResponsesProvider end to end through FakeHttpClient: the request it
// sends, streamed events, the HTTP error responses that apply to this API,
// transport failures and cancellation; and the factory entry.
#include "daemon/providers/openai_responses/openai_responses_provider.h"

#include <memory>
#include <string>
#include <vector>

#include "daemon/providers/openai_responses/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/openai_responses/fixture_support.h"
#include "tests/daemon/providers/provider_test_harness.h"

namespace raw::providers::openai_responses {
namespace {

namespace harness = ::raw::providers::testing;
using ::raw::providers::openai_responses::testing::ReadFixture;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

config::ModelConfig Model() {
  config::ModelConfig model = harness::TestModel("gpt", "openai", config::kMethodOpenAiResponses,
                                                 "gpt-test", "http://127.0.0.1:9/v1/");
  model.max_output_tokens = 900;
  return model;
}

ModelRequest Request() { return harness::HelloRequest(); }

std::unique_ptr<Provider> Make(http::HttpClient& http) {
  return std::make_unique<OpenAiResponsesProvider>(Model(), http, "k");
}

TEST(OpenAiResponsesProviderTest, SendsTheRequestAndStreamsEvents) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse(SplitEvery(ReadFixture("02-parallel-tools"), 7)));
  OpenAiResponsesProvider provider(Model(), http, "sk-test", "cache-1");
  harness::RecordingSink sink;
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

  harness::ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start resp_T2 gpt-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=completed");
  EXPECT_EQ(sink.events.size(), 11u);
}

TEST(OpenAiResponsesProviderTest, FactoryEntryPassesKeyAndCacheKey) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  http.Enqueue(harness::Sse({ReadFixture("01-text")}));
  ProviderOptions options;
  options.prompt_cache_key = "ws/session-1";
  std::unique_ptr<Provider> with_key = MakeOpenAiResponsesProvider(Model(), http, "k1", options);
  std::unique_ptr<Provider> without_key = MakeOpenAiResponsesProvider(Model(), http, "", {});
  harness::RecordingSink sink;
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
  std::vector<harness::HttpErrorCase> cases = {
      {"429-retry-after",
       429,
       {{"retry-after", "2"}, {"content-type", "application/json"}},
       R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})",
       "error rate_limited retryable before_output http=429 type=requests "
       "code=rate_limit_exceeded retry_after=2000",
       "HTTP 429: Rate limit reached",
       absl::StatusCode::kResourceExhausted,
       std::nullopt},
      {"429-quota",
       429,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"You exceeded your current quota, please check your plan.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})",
       "error billing final before_output http=429 type=insufficient_quota "
       "code=insufficient_quota retry_after=?",
       "HTTP 429: You exceeded your current quota, please check your plan.",
       absl::StatusCode::kResourceExhausted,
       std::nullopt},
      {"400-context",
       400,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}})",
       "error context_overflow final before_output http=400 type=invalid_request_error "
       "code=context_length_exceeded retry_after=?",
       "HTTP 400: Your input exceeds the context window of this model.",
       absl::StatusCode::kOutOfRange,
       std::nullopt},
      {"502-html",
       502,
       {{"content-type", "text/html"}},
       "<html>Bad gateway</html>",
       "error server retryable before_output http=502 type= code= retry_after=?",
       "HTTP 502: Bad gateway",
       absl::StatusCode::kUnavailable,
       std::nullopt},
      {"500-should-not-retry",
       500,
       {{"x-should-retry", "false"}},
       R"({"error":{"message":"boom","type":"server_error","param":null,"code":null}})",
       "error server final before_output http=500 type=server_error code= retry_after=?",
       "HTTP 500: boom",
       absl::StatusCode::kUnavailable,
       std::nullopt},
      {"503-overloaded",
       503,
       {{"content-type", "application/json"}},
       R"({"error":{"message":"The server is overloaded.","type":"server_error","code":"server_is_overloaded"}})",
       "error overloaded retryable before_output http=503 type=server_error "
       "code=server_is_overloaded retry_after=?",
       "HTTP 503: The server is overloaded.",
       absl::StatusCode::kUnavailable,
       std::nullopt},
      {"401-bad-key",
       401,
       {{"content-type", "application/json"}, {"x-request-id", "req_9"}},
       R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})",
       "error auth final before_output http=401 type=invalid_request_error "
       "code=invalid_api_key retry_after=?",
       "HTTP 401: Incorrect API key provided",
       absl::StatusCode::kUnauthenticated,
       std::nullopt},
  };
  harness::ExpectHttpErrors(Make, cases);
}

TEST(OpenAiResponsesProviderTest, HttpErrorKeepsTheRequestId) {
  harness::FakeHttpResponse response = harness::Sse(
      {R"({"error":{"message":"nope","type":"invalid_request_error"}})"}, absl::OkStatus(), 404);
  response.headers = {{"Content-Type", "application/json"}, {"x-request-id", "req_9"}};
  harness::RecordingSink sink;
  EXPECT_EQ(harness::StreamOnce(Make, response, sink), absl::NotFoundError("HTTP 404: nope"));
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).request_id, "req_9");
}

TEST(OpenAiResponsesProviderTest, MidstreamErrorGetsTheRequestId) {
  harness::FakeHttpResponse response = harness::Sse({ReadFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"X-Request-Id", "req_5"}};
  harness::RecordingSink sink;
  absl::Status status = harness::StreamOnce(Make, response, sink);
  EXPECT_EQ(status, absl::UnavailableError("The server is overloaded. Please retry."));
  harness::ExpectStreamInvariants(sink.events);
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(OpenAiResponsesProviderTest, CancellationFromTheSinkEndsTheStream) {
  std::string body = ReadFixture("01-text");
  size_t cut = body.find("\n\n", body.find("\"delta\":\"Hello\"")) + 2;
  harness::FakeHttpResponse response = harness::Sse({body.substr(0, cut), body.substr(cut)});
  response.hold_after_chunks = 1;
  harness::ExpectCancelFromTheSink(
      Make, response,
      {"start resp_T1 gpt-test", "text 0 [Hello]",
       "error cancelled final after_output http=0 type= code= retry_after=?"});
}

TEST(OpenAiResponsesProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  harness::ExpectCancelFromAnotherThreadWhileWaiting(Make);
}

TEST(OpenAiResponsesProviderTest, AlreadyCancelledSendsNothing) {
  harness::ExpectAlreadyCancelledSendsNothing(Make);
}

TEST(OpenAiResponsesProviderTest, TransportOutcomes) {
  std::vector<harness::TransportCase> cases =
      harness::CommonTransportCases(ReadFixture("06-cutoff"), "clean EOF without a terminal event");
  cases.push_back({"cut off after the terminal event",
                   harness::Sse({ReadFixture("01-text")}, absl::UnavailableError("reset")),
                   "finish stop raw=completed", absl::StatusCode::kOk});
  harness::ExpectTransportOutcomes(Make, cases);
}

TEST(OpenAiResponsesProviderTest, StopsReadingAfterTheTerminalEvent) {
  harness::ExpectStopsReadingAfterTheTerminalEvent(
      Make, ReadFixture("01-text"), "data: {\"never\":\"read\"}\n\n", "finish stop raw=completed");
}

TEST(OpenAiResponsesProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  harness::ExpectJsonBodyDecodedWhole(
      Make,
      R"({"id":"resp_J","model":"llama","status":"completed","output":[{"id":"m","type":"message","content":[{"type":"output_text","text":"Hi there"}]}],"usage":{"input_tokens":3,"output_tokens":2}})",
      "application/json; charset=utf-8",
      {"start resp_J llama", "text 0 [Hi there]",
       "usage in=3 out=2 cache_read=? cache_write=? reasoning=?", "finish stop raw=completed"});
}

// Argument deltas of an item never announced are buffered, not emitted:
// they count against the cap all the same.
TEST(OpenAiResponsesProviderTest, UnannouncedArgumentDeltasCountAgainstTheByteCap) {
  std::vector<std::string> chunks = {
      R"(data: {"type":"response.created","response":{"id":"resp_H","model":"m"}})"
      "\n\n"};
  for (int i = 0; i < 20; ++i) {
    chunks.push_back(R"(data: {"type":"response.function_call_arguments.delta","item_id":"fc_1",)"
                     R"("output_index":0,"delta":")" +
                     std::string(300, 'x') + "\"}\n\n");
  }
  harness::ExpectHeldBytesCountAgainstTheCap(
      [](http::HttpClient& http) {
        config::ModelConfig model = Model();
        model.max_response_bytes = 1024;
        return std::make_unique<OpenAiResponsesProvider>(model, http, "k");
      },
      chunks);
}

TEST(OpenAiResponsesProviderTest, EndpointJoinsBaseUrl) {
  harness::FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.openai.com/v1";
  EXPECT_EQ(OpenAiResponsesProvider(model, http, std::nullopt).endpoint(),
            "https://api.openai.com/v1/responses");
  model.base_url = "http://localhost:11434/v1//";
  EXPECT_EQ(OpenAiResponsesProvider(model, http, std::nullopt).endpoint(),
            "http://localhost:11434/v1/responses");
}

// A tool call's name and id count against the cap, also the id of a call
// whose name has not come yet (held, not emitted).
TEST(OpenAiResponsesProviderTest, ToolCallNamesAndIdsCountAgainstTheByteCap) {
  auto make = [](http::HttpClient& http) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    return std::make_unique<OpenAiResponsesProvider>(model, http, "k");
  };
  auto added = [](const std::string& call_id, const std::string& name) {
    return std::string(
               R"(data: {"type":"response.created","response":{"id":"resp_H","model":"m"}})")
        .append("\n\n")
        .append(R"(data: {"type":"response.output_item.added","output_index":0,)")
        .append(R"("item":{"id":"fc_1","type":"function_call","call_id":")")
        .append(call_id)
        .append(R"(","name":")")
        .append(name)
        .append("\"}}\n\n");
  };
  harness::ExpectHeldBytesCountAgainstTheCap(make, {added("call_1", std::string(2000, 'n'))});
  harness::ExpectHeldBytesCountAgainstTheCap(make, {added(std::string(2000, 'i'), "")});
}

}  // namespace
}  // namespace raw::providers::openai_responses
