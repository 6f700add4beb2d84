// GoogleProvider end to end through FakeHttpClient: the request it sends
// (URL, headers, key, body), streamed events, HTTP errors, transport
// failures and cancellation.
#include "daemon/providers/google/google_provider.h"

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/google/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::providers::google {
namespace {

using ::raw::providers::testing::EventTexts;
using ::raw::providers::testing::ExpectStreamInvariants;
using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/gemini/" + name + ".sse",
                   std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

config::ModelConfig Model() {
  config::ModelConfig model;
  model.name = "gem";
  model.provider = "google";
  model.method = config::kMethodGoogleGenerateContent;
  model.model_id = "gemini-test";
  model.base_url = "http://127.0.0.1:9/v1beta/";
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

TEST(GoogleProviderTest, SendsTheRequestAndStreamsEvents) {
  FakeHttpClient http;
  std::string crlf = absl::StrReplaceAll(ReadFixture("02-parallel-tools"), {{"\n", "\r\n"}});
  http.Enqueue(Sse(SplitEvery(crlf, 5)));
  GoogleProvider provider(Model(), http, "AIza-test");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());

  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url,
            "http://127.0.0.1:9/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
  EXPECT_THAT(sent.headers, UnorderedElementsAre(Pair("x-goog-api-key", "AIza-test"),
                                                 Pair("Content-Type", "application/json"),
                                                 Pair("Accept", "text/event-stream")));
  EXPECT_EQ(sent.body, BuildRequestBody(Request(), Model()));
  EXPECT_EQ(sent.idle_timeout_ms, 1234);
  EXPECT_EQ(sent.connect_timeout_ms, 567);

  ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start gT2 gemini-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=STOP");
  EXPECT_EQ(sink.events.size(), 12u);
}

TEST(GoogleProviderTest, NoKeyHeaderWithoutKeyAndResourceModelIds) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("01-text")}));
  config::ModelConfig model = Model();
  model.model_id = "tunedModels/my-model";
  GoogleProvider provider(model, http, "");
  RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.url,
            "http://127.0.0.1:9/v1beta/tunedModels/my-model:streamGenerateContent?alt=sse");
  for (const auto& [name, value] : sent.headers) EXPECT_NE(name, "x-goog-api-key");
  EXPECT_EQ(sent.url.find("key="), std::string::npos);
}

TEST(GoogleProviderTest, FactoryBuildsTheProvider) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("01-text")}));
  std::unique_ptr<Provider> provider = MakeGoogleProvider(Model(), http, "k", ProviderOptions{});
  RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider->Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(http.single_request().headers, ::testing::Contains(Pair("x-goog-api-key", "k")));
}

TEST(GoogleProviderTest, HttpErrorCarriesTheProviderMessage) {
  FakeHttpClient http;
  http.Enqueue(Sse({R"({"error":{"code":429,"message":"Resource has been exhausted",)"
                    R"("status":"RESOURCE_EXHAUSTED","details":[{"@type":)"
                    R"("type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}})"},
                   absl::OkStatus(), 429));
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "HTTP 429: Resource has been exhausted");
  EXPECT_THAT(sink.texts(), ElementsAre("error rate_limited retryable before_output http=429 "
                                        "type= code=RESOURCE_EXHAUSTED retry_after=34400"));
}

TEST(GoogleProviderTest, MidstreamError) {
  FakeHttpClient http;
  http.Enqueue(Sse({ReadFixture("05-midstream-error")}));
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "The model is overloaded. Please try again later.");
  ExpectStreamInvariants(sink.events);
}

TEST(GoogleProviderTest, CancellationFromTheSinkEndsTheStream) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(SplitEvery(ReadFixture("01-text"), 40));
  http.Enqueue(response);
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  sink.on_event = [&cancel](const ProviderEvent& event) {
    if (std::holds_alternative<TextDeltaEvent>(event)) cancel.Cancel("user interrupt");
  };
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(),
              ElementsAre("start gT1 gemini-test", "text 0 [Hello]",
                          // Only the prompt count of an unfinished answer is final.
                          "usage in=12 out=? cache_read=? cache_write=? reasoning=?",
                          "error cancelled final after_output http=0 type= code= retry_after=?"));
}

TEST(GoogleProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({});
  response.hold_after_chunks = 0;
  http.Enqueue(response);
  GoogleProvider provider(Model(), http, "k");
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

TEST(GoogleProviderTest, AlreadyCancelledSendsNothing) {
  FakeHttpClient http;
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(provider.Stream(Request(), sink, cancel).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(http.requests().empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kCancelled);
}

TEST(GoogleProviderTest, TransportOutcomes) {
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
      {"clean EOF without finishReason", Sse({cutoff}),
       "error premature_eof retryable after_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable},
      {"connection reset after the finishReason chunk",
       Sse({ReadFixture("01-text")}, absl::UnavailableError("reset")), "finish stop raw=STOP",
       absl::StatusCode::kOk},
  };
  for (Case& c : cases) {
    FakeHttpClient http;
    http.Enqueue(c.response);
    GoogleProvider provider(Model(), http, "k");
    RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider.Stream(Request(), sink, cancel);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    ASSERT_FALSE(sink.events.empty()) << c.name;
    EXPECT_EQ(sink.texts().back(), c.last_event) << c.name;
    ExpectStreamInvariants(sink.events);
  }
}

TEST(GoogleProviderTest, JsonArrayBodyWithoutSse) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(
      {R"([{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},)"
       R"("finishReason":"STOP"}],"responseId":"j1","modelVersion":"m"}])"});
  response.headers = {{"Content-Type", "application/json; charset=UTF-8"}};
  http.Enqueue(response);
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(sink.texts(), ElementsAre("start j1 m", "text 0 [Hi]", "finish stop raw=STOP"));
}

TEST(GoogleProviderTest, HtmlErrorFromAProxy) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({"<html>Bad gateway</html>"}, absl::OkStatus(), 502);
  response.headers = {{"content-type", "text/html"}};
  http.Enqueue(response);
  GoogleProvider provider(Model(), http, "k");
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "HTTP 502: Bad gateway");
}

}  // namespace
}  // namespace raw::providers::google
