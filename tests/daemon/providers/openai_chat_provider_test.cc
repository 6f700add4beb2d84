// OpenAiChatProvider end to end through FakeHttpClient: the request it
// sends, streamed events, HTTP errors, transport failures and cancellation.
#include "daemon/providers/openai_chat/openai_chat_provider.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/providers/openai_chat/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/provider_test_harness.h"
#include "tests/fakes/sse_builders.h"

namespace raw::providers::openai_chat {
namespace {

namespace harness = ::raw::providers::testing;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::string ReadChatFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("chat", name);
}

config::ModelConfig Model() {
  return harness::TestModel("gpt", "openai", config::kMethodOpenAiChat, "gpt-test",
                            "http://127.0.0.1:9/v1/");
}

ModelRequest Request() { return harness::HelloRequest(); }

std::unique_ptr<Provider> Make(http::HttpClient& http) {
  return std::make_unique<OpenAiChatProvider>(Model(), http, "k");
}

TEST(OpenAiChatProviderTest, SendsTheRequestAndStreamsEvents) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse(SplitEvery(ReadChatFixture("02-parallel-tools"), 7)));
  OpenAiChatProvider provider(Model(), http, "sk-test", "cache-1");
  harness::RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());

  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://127.0.0.1:9/v1/chat/completions");
  EXPECT_THAT(sent.headers, UnorderedElementsAre(Pair("Authorization", "Bearer sk-test"),
                                                 Pair("Content-Type", "application/json"),
                                                 Pair("Accept", "text/event-stream")));
  EXPECT_EQ(sent.body, BuildRequestBody(Request(), Model(), "cache-1"));
  EXPECT_EQ(sent.idle_timeout_ms, 1234);
  EXPECT_EQ(sent.connect_timeout_ms, 567);

  harness::ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start chatcmpl-T1 gpt-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=tool_calls");
  EXPECT_EQ(sink.events.size(), 11u);
}

TEST(OpenAiChatProviderTest, ModelSettingSendsReasoningBack) {
  ModelRequest request = Request();
  request.messages.push_back(events::AssistantTurn{"", "look first", {{"call_1", "ls", "{}"}}, {}});
  request.messages.push_back(events::ToolOutcome{"call_1", "ls", "a.txt", false});
  for (bool send : {true, false}) {
    config::ModelConfig model = Model();
    model.send_reasoning_content = send;
    harness::FakeHttpClient http;
    http.Enqueue(harness::Sse({ReadChatFixture("01-text")}));
    OpenAiChatProvider provider(model, http, std::nullopt);
    harness::RecordingSink sink;
    CancelToken cancel;
    ASSERT_TRUE(provider.Stream(request, sink, cancel).ok());
    const std::string body = http.single_request().body;
    if (send) {
      EXPECT_THAT(body,
                  HasSubstr(R"("content":null,"reasoning_content":"look first","tool_calls")"));
    } else {
      EXPECT_THAT(body, Not(HasSubstr("reasoning_content")));
    }
  }
}

TEST(OpenAiChatProviderTest, NoAuthorizationHeaderWithoutKey) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadChatFixture("01-text")}));
  OpenAiChatProvider provider(Model(), http, std::nullopt);
  harness::RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  for (const auto& [name, value] : http.single_request().headers) {
    EXPECT_NE(name, "Authorization");
  }
  EXPECT_THAT(http.single_request().body, Not(HasSubstr("prompt_cache_key")));
}

TEST(OpenAiChatProviderTest, HttpErrorCarriesTheProviderMessage) {
  harness::FakeHttpClient http;
  harness::FakeHttpResponse response =
      harness::Sse({R"({"error":{"message":"Incorrect API key provided",)",
                    R"("type":"invalid_request_error","param":null,)"
                    R"("code":"invalid_api_key"}})"});
  response.status = 401;
  response.headers = {{"Content-Type", "application/json"}, {"x-request-id", "req_9"}};
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "bad");
  harness::RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status, absl::UnauthenticatedError("HTTP 401: Incorrect API key provided"));
  ASSERT_EQ(sink.events.size(), 1u);  // no Start: the request failed before a body
  const auto& error = std::get<ErrorEvent>(sink.events[0]);
  EXPECT_EQ(error.kind, ErrorKind::kAuth);
  EXPECT_EQ(error.http_status, 401);
  EXPECT_EQ(error.message, "HTTP 401: Incorrect API key provided");
  EXPECT_EQ(error.request_id, "req_9");
  EXPECT_FALSE(error.after_output);
}

TEST(OpenAiChatProviderTest, MidstreamErrorGetsTheRequestId) {
  harness::FakeHttpResponse response = harness::Sse({ReadChatFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"X-Request-Id", "req_5"}};
  harness::RecordingSink sink;
  absl::Status status = harness::StreamOnce(Make, response, sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(OpenAiChatProviderTest, CancellationFromTheSinkEndsTheStream) {
  std::string body = ReadChatFixture("01-text");
  size_t second_event = body.find("\n\n") + 2;
  size_t third_event = body.find("\n\n", second_event) + 2;
  harness::FakeHttpResponse response =
      harness::Sse({body.substr(0, third_event), body.substr(third_event)});
  response.hold_after_chunks = 1;
  harness::ExpectCancelFromTheSink(
      Make, response,
      {"start chatcmpl-T1 gpt-test", "text 0 [Hello]",
       "error cancelled final after_output http=0 type= code= retry_after=?"});
}

TEST(OpenAiChatProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  harness::ExpectCancelFromAnotherThreadWhileWaiting(Make);
}

TEST(OpenAiChatProviderTest, AlreadyCancelledSendsNothing) {
  harness::ExpectAlreadyCancelledSendsNothing(Make);
}

TEST(OpenAiChatProviderTest, TransportOutcomes) {
  std::string text = ReadChatFixture("01-text");
  std::string finished = text.substr(0, text.find("data: {", text.find("\"stop\"")));
  std::vector<harness::TransportCase> cases =
      harness::CommonTransportCases(ReadChatFixture("06-cutoff"), "clean EOF without finish");
  cases.push_back({"cut off after finish_reason",
                   harness::Sse({finished}, absl::UnavailableError("reset")),
                   "finish stop raw=stop", absl::StatusCode::kOk});
  harness::ExpectTransportOutcomes(Make, cases);
}

// models.<name>.max_response_bytes: past it the stream fails (not to be
// retried), nothing after the event that crossed it is delivered, and the
// provider stops reading.
TEST(OpenAiChatProviderTest, AResponsePastItsByteCapFailsAndStopsReading) {
  config::ModelConfig model = Model();
  model.max_response_bytes = 1024;
  const std::string piece(300, 'x');
  std::vector<std::string> chunks = {::raw::testing::chat::RoleChunk()};
  for (int i = 0; i < 20; ++i) chunks.push_back(::raw::testing::chat::TextChunk(piece));
  chunks.push_back(::raw::testing::chat::FinishChunk("stop"));
  chunks.push_back(::raw::testing::chat::Done());
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse(chunks));
  OpenAiChatProvider provider(model, http, "k");
  harness::RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("exceeded 1024 bytes"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("models.gpt.max_response_bytes"));
  size_t text = 0;
  for (const auto& event : sink.events) {
    if (const auto* delta = std::get_if<TextDeltaEvent>(&event)) text += delta->text.size();
  }
  EXPECT_EQ(text, 900u);  // three pieces fit; the fourth crossed the cap
  const auto* error = std::get_if<ErrorEvent>(&sink.events.back());
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(error->retryable);
  EXPECT_EQ(http.single_request().total_timeout_ms, model.max_stream_ms);
}

// Fragments of a call whose name never comes are buffered, not emitted:
// they count against the cap all the same.
TEST(OpenAiChatProviderTest, NamelessToolCallFragmentsCountAgainstTheByteCap) {
  std::vector<std::string> chunks = {::raw::testing::chat::RoleChunk()};
  const std::string fragment =
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":")" +
      std::string(300, 'x') + R"("}}]}}]})";
  for (int i = 0; i < 20; ++i) chunks.push_back("data: " + fragment + "\n\n");
  harness::ExpectHeldBytesCountAgainstTheCap(
      [](http::HttpClient& http) {
        config::ModelConfig model = Model();
        model.max_response_bytes = 1024;
        return std::make_unique<OpenAiChatProvider>(model, http, "k");
      },
      chunks);
}

// The cap counts each byte a response leaves in memory once. DeepSeek's
// reasoning (reasoning_content, sent back with reasoning_content: "send") is
// kept as its deltas only, so a response of exactly max_response_bytes of
// reasoning and text is whole, and one byte more is refused.
TEST(OpenAiChatProviderTest, ReasoningCountsOnceAgainstTheByteCap) {
  auto stream = [](size_t text_bytes, harness::RecordingSink& sink) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    model.send_reasoning_content = true;
    std::vector<std::string> chunks = {::raw::testing::chat::RoleChunk()};
    for (int i = 0; i < 3; ++i) {
      chunks.push_back(::raw::testing::chat::ReasoningChunk(std::string(200, 'r')));
    }
    chunks.push_back(::raw::testing::chat::TextChunk(std::string(text_bytes, 't')));
    chunks.push_back(::raw::testing::chat::FinishChunk("stop"));
    chunks.push_back(::raw::testing::chat::Done());
    harness::FakeHttpClient http;
    http.Enqueue(harness::Sse(chunks));
    OpenAiChatProvider provider(model, http, "k");
    CancelToken cancel;
    return provider.Stream(Request(), sink, cancel);
  };
  harness::RecordingSink whole;
  absl::Status at_cap = stream(1024 - 600, whole);
  EXPECT_TRUE(at_cap.ok()) << at_cap;
  EXPECT_EQ(whole.texts().back(), "finish stop raw=stop");
  size_t reasoning = 0;
  size_t text = 0;
  for (const auto& event : whole.events) {
    if (const auto* delta = std::get_if<ReasoningDeltaEvent>(&event)) {
      reasoning += delta->text.size();
    }
    if (const auto* delta = std::get_if<TextDeltaEvent>(&event)) text += delta->text.size();
  }
  EXPECT_EQ(reasoning, 600u);
  EXPECT_EQ(text, 424u);

  harness::RecordingSink over;
  absl::Status past_cap = stream(1024 - 600 + 1, over);
  EXPECT_THAT(std::string(past_cap.message()), HasSubstr("exceeded 1024 bytes"));
}

// models.<name>.max_stream_seconds: the transfer's total timeout names the
// setting and is not retried.
TEST(OpenAiChatProviderTest, AStreamPastItsTimeLimitNamesTheSetting) {
  harness::RecordingSink sink;
  absl::Status status = harness::StreamOnce(
      Make,
      harness::Sse({::raw::testing::chat::RoleChunk(), ::raw::testing::chat::TextChunk("slow")},
                   absl::DeadlineExceededError(
                       "request to 127.0.0.1:9 exceeded its total timeout of 3600000 ms")),
      sink);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("longer than 3600 s"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("models.gpt.max_stream_seconds"));
  const auto* error = std::get_if<ErrorEvent>(&sink.events.back());
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(error->retryable);
  EXPECT_EQ(error->kind, ErrorKind::kTimeout);
}

TEST(OpenAiChatProviderTest, StopsReadingAfterDone) {
  harness::ExpectStopsReadingAfterTheTerminalEvent(
      Make, ReadChatFixture("01-text"), "data: {\"never\":\"read\"}\n\n", "finish stop raw=stop");
}

TEST(OpenAiChatProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  harness::ExpectJsonBodyDecodedWhole(
      Make,
      R"({"id":"c9","model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}})",
      "application/json; charset=utf-8",
      {"start c9 llama", "text 0 [Hi there]",
       "usage in=3 out=2 cache_read=? cache_write=? reasoning=?", "finish stop raw=stop"});
}

TEST(OpenAiChatProviderTest, EndpointJoinsBaseUrl) {
  harness::FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.deepseek.com";
  EXPECT_EQ(OpenAiChatProvider(model, http, std::nullopt).endpoint(),
            "https://api.deepseek.com/chat/completions");
  model.base_url = "http://localhost:11434/v1//";
  EXPECT_EQ(OpenAiChatProvider(model, http, std::nullopt).endpoint(),
            "http://localhost:11434/v1/chat/completions");
}

// A tool call's name and id, and each call itself, count against the cap:
// a call named with 2000 bytes, and calls that only ever send their index
// (held, never emitted), each end the stream at once.
TEST(OpenAiChatProviderTest, ToolCallNamesIdsAndCallsCountAgainstTheByteCap) {
  auto make = [](http::HttpClient& http) {
    config::ModelConfig model = Model();
    model.max_response_bytes = 1024;
    return std::make_unique<OpenAiChatProvider>(model, http, "k");
  };
  auto chunk = [](const std::string& calls) {
    return R"(data: {"choices":[{"index":0,"delta":{"tool_calls":[)" + calls + "]}}]}\n\n";
  };
  harness::ExpectHeldBytesCountAgainstTheCap(
      make,
      {::raw::testing::chat::RoleChunk(), chunk(R"({"index":0,"id":"c1","function":{"name":")" +
                                                std::string(2000, 'n') + R"(","arguments":""}})")});
  harness::ExpectHeldBytesCountAgainstTheCap(
      make, {::raw::testing::chat::RoleChunk(),
             chunk(R"({"index":0,"id":")" + std::string(2000, 'i') + R"("})")});
  std::string nameless;
  for (int i = 0; i < 40; ++i)
    nameless += (i > 0 ? "," : "") + absl::StrCat(R"({"index":)", i, "}");
  harness::ExpectHeldBytesCountAgainstTheCap(make,
                                             {::raw::testing::chat::RoleChunk(), chunk(nameless)});
}

}  // namespace
}  // namespace raw::providers::openai_chat
