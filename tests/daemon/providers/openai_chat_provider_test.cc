// OpenAiChatProvider end to end through FakeHttpClient: the request it
// sends, streamed events, HTTP errors, transport failures and cancellation.
#include "daemon/providers/openai_chat/openai_chat_provider.h"

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/providers/openai_chat/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers::openai_chat {
namespace {

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

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/chat/" + name + ".sse",
                   std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

config::ModelConfig Model() {
  config::ModelConfig model;
  model.name = "gpt";
  model.provider = "openai";
  model.method = config::kMethodOpenAiChat;
  model.model_id = "gpt-test";
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

// A 200 event-stream response of `chunks`, after which Send returns `end`.
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

TEST(OpenAiChatProviderTest, SendsTheRequestAndStreamsEvents) {
  FakeHttpClient http;
  http.Enqueue(Sse(SplitEvery(ReadFixture("02-parallel-tools"), 7)));
  OpenAiChatProvider provider(Model(), http, "sk-test", "cache-1");
  RecordingSink sink;
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

  ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start chatcmpl-T1 gpt-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=tool_calls");
  EXPECT_EQ(sink.events.size(), 11u);
}

TEST(OpenAiChatProviderTest, ModelSettingSendsReasoningBack) {
  ModelRequest request = Request();
  request.messages.push_back(
      events::AssistantTurn{"", "look first", {{"call_1", "ls", "{}"}}, {}});
  request.messages.push_back(events::ToolOutcome{"call_1", "ls", "a.txt", false});
  for (bool send : {true, false}) {
    config::ModelConfig model = Model();
    model.send_reasoning_content = send;
    FakeHttpClient http;
    http.Enqueue(Sse({ReadFixture("01-text")}));
    OpenAiChatProvider provider(model, http, std::nullopt);
    RecordingSink sink;
    CancelToken cancel;
    ASSERT_TRUE(provider.Stream(request, sink, cancel).ok());
    const std::string body = http.single_request().body;
    if (send) {
      EXPECT_THAT(body, HasSubstr(R"("content":null,"reasoning_content":"look first","tool_calls")"));
    } else {
      EXPECT_THAT(body, Not(HasSubstr("reasoning_content")));
    }
  }
}

TEST(OpenAiChatProviderTest, NoAuthorizationHeaderWithoutKey) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("01-text")}));
  OpenAiChatProvider provider(Model(), http, std::nullopt);
  RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  for (const auto& [name, value] : http.single_request().headers) {
    EXPECT_NE(name, "Authorization");
  }
  EXPECT_THAT(http.single_request().body, Not(HasSubstr("prompt_cache_key")));
}

TEST(OpenAiChatProviderTest, HttpErrorCarriesTheProviderMessage) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({R"({"error":{"message":"Incorrect API key provided",)",
                                   R"("type":"invalid_request_error","param":null,)"
                                   R"("code":"invalid_api_key"}})"});
  response.status = 401;
  response.headers = {{"Content-Type", "application/json"}, {"x-request-id", "req_9"}};
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "bad");
  RecordingSink sink;
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
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("05-midstream-error")});
  response.headers = {{"content-type", "text/event-stream"}, {"X-Request-Id", "req_5"}};
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  const auto& error = std::get<ErrorEvent>(sink.events.back());
  EXPECT_EQ(error.request_id, "req_5");
  EXPECT_TRUE(error.after_output);
}

TEST(OpenAiChatProviderTest, CancellationFromTheSinkEndsTheStream) {
  FakeHttpClient http;
  std::string body = ReadFixture("01-text");
  size_t second_event = body.find("\n\n") + 2;
  size_t third_event = body.find("\n\n", second_event) + 2;
  FakeHttpResponse response = Sse({body.substr(0, third_event), body.substr(third_event)});
  response.hold_after_chunks = 1;
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  sink.on_event = [&cancel](const ProviderEvent& event) {
    if (std::holds_alternative<TextDeltaEvent>(event)) cancel.Cancel("user interrupt");
  };
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(),
              ElementsAre("start chatcmpl-T1 gpt-test", "text 0 [Hello]",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
  EXPECT_THAT(std::get<ErrorEvent>(sink.events.back()).message, HasSubstr("user interrupt"));
}

TEST(OpenAiChatProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({});
  response.hold_after_chunks = 0;
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "k");
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

TEST(OpenAiChatProviderTest, AlreadyCancelledSendsNothing) {
  FakeHttpClient http;
  OpenAiChatProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(provider.Stream(Request(), sink, cancel).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(http.requests().empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kCancelled);
}

TEST(OpenAiChatProviderTest, TransportOutcomes) {
  struct Case {
    const char* name;
    FakeHttpResponse response;
    std::string last_event;
    absl::StatusCode code;
  };
  std::string cutoff = ReadFixture("06-cutoff");
  std::string text = ReadFixture("01-text");
  std::string finished = text.substr(0, text.find("data: {", text.find("\"stop\"")));
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
      {"clean EOF without finish", Sse({cutoff}),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"cut off after finish_reason",
       Sse({finished}, absl::UnavailableError("reset")),
       "finish stop raw=stop", absl::StatusCode::kOk},
  };
  for (Case& c : cases) {
    FakeHttpClient http;
    http.Enqueue(c.response);
    OpenAiChatProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    ASSERT_FALSE(sink.events.empty()) << c.name;
    EXPECT_EQ(sink.texts().back(), c.last_event) << c.name;
    ExpectStreamInvariants(sink.events);
  }
}

TEST(OpenAiChatProviderTest, StopsReadingAfterDone) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({ReadFixture("01-text"), "data: {\"never\":\"read\"}\n\n"});
  response.hold_after_chunks = 2;  // the server keeps the connection open
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_EQ(sink.texts().back(), "finish stop raw=stop");
}

TEST(OpenAiChatProviderTest, JsonBodyWhenTheServerIgnoresStreaming) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(SplitEvery(
      R"({"id":"c9","model":"llama","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}})",
      5));
  response.headers = {{"Content-Type", "application/json; charset=utf-8"}};
  http.Enqueue(response);
  OpenAiChatProvider provider(Model(), http, std::nullopt);
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(sink.texts(), ElementsAre("start c9 llama", "text 0 [Hi there]",
                                        "usage in=3 out=2 cache_read=? cache_write=? reasoning=?",
                                        "finish stop raw=stop"));
}

TEST(OpenAiChatProviderTest, EndpointJoinsBaseUrl) {
  FakeHttpClient http;
  config::ModelConfig model = Model();
  model.base_url = "https://api.deepseek.com";
  EXPECT_EQ(OpenAiChatProvider(model, http, std::nullopt).endpoint(),
            "https://api.deepseek.com/chat/completions");
  model.base_url = "http://localhost:11434/v1//";
  EXPECT_EQ(OpenAiChatProvider(model, http, std::nullopt).endpoint(),
            "http://localhost:11434/v1/chat/completions");
}

}  // namespace
}  // namespace raw::providers::openai_chat
