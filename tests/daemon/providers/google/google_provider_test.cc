// GoogleProvider end to end through FakeHttpClient: the request it sends
// (URL, headers, key, body), streamed events, HTTP errors, transport
// failures and cancellation.
#include "daemon/providers/google/google_provider.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "daemon/providers/google/request_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/provider_test_harness.h"

namespace raw::providers::google {
namespace {

namespace harness = ::raw::providers::testing;
using ::raw::testing::SplitEvery;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::string ReadGeminiFixture(const std::string& name) {
  return ::raw::testing::ReadSseFixture("gemini", name);
}

config::ModelConfig Model() {
  return harness::TestModel("gem", "google", config::kMethodGoogleGenerateContent, "gemini-test",
                            "http://127.0.0.1:9/v1beta/");
}

ModelRequest Request() { return harness::HelloRequest(); }

std::unique_ptr<Provider> Make(http::HttpClient& http) {
  return std::make_unique<GoogleProvider>(Model(), http, "k");
}

TEST(GoogleProviderTest, SendsTheRequestAndStreamsEvents) {
  harness::FakeHttpClient http;
  std::string crlf = absl::StrReplaceAll(ReadGeminiFixture("02-parallel-tools"), {{"\n", "\r\n"}});
  http.Enqueue(harness::Sse(SplitEvery(crlf, 5)));
  GoogleProvider provider(Model(), http, "AIza-test");
  harness::RecordingSink sink;
  CancelToken cancel;
  EXPECT_TRUE(provider.Stream(Request(), sink, cancel).ok());

  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://127.0.0.1:9/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
  EXPECT_THAT(sent.headers, UnorderedElementsAre(Pair("x-goog-api-key", "AIza-test"),
                                                 Pair("Content-Type", "application/json"),
                                                 Pair("Accept", "text/event-stream")));
  EXPECT_EQ(sent.body, BuildRequestBody(Request(), Model()));
  EXPECT_EQ(sent.idle_timeout_ms, 1234);
  EXPECT_EQ(sent.connect_timeout_ms, 567);

  harness::ExpectStreamInvariants(sink.events);
  EXPECT_EQ(sink.texts().front(), "start gT2 gemini-test");
  EXPECT_EQ(sink.texts().back(), "finish tool_calls raw=STOP");
  EXPECT_EQ(sink.events.size(), 12u);
}

TEST(GoogleProviderTest, NoKeyHeaderWithoutKeyAndResourceModelIds) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadGeminiFixture("01-text")}));
  config::ModelConfig model = Model();
  model.model_id = "tunedModels/my-model";
  GoogleProvider provider(model, http, "");
  harness::RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider.Stream(Request(), sink, cancel).ok());
  http::HttpRequest sent = http.single_request();
  EXPECT_EQ(sent.url,
            "http://127.0.0.1:9/v1beta/tunedModels/my-model:streamGenerateContent?alt=sse");
  for (const auto& [name, value] : sent.headers) EXPECT_NE(name, "x-goog-api-key");
  EXPECT_EQ(sent.url.find("key="), std::string::npos);
}

TEST(GoogleProviderTest, FactoryBuildsTheProvider) {
  harness::FakeHttpClient http;
  http.Enqueue(harness::Sse({ReadGeminiFixture("01-text")}));
  std::unique_ptr<Provider> provider = MakeGoogleProvider(Model(), http, "k", ProviderOptions{});
  harness::RecordingSink sink;
  CancelToken cancel;
  ASSERT_TRUE(provider->Stream(Request(), sink, cancel).ok());
  EXPECT_THAT(http.single_request().headers, ::testing::Contains(Pair("x-goog-api-key", "k")));
}

TEST(GoogleProviderTest, HttpErrorCarriesTheProviderMessage) {
  harness::FakeHttpClient http;
  http.Enqueue(
      harness::Sse({R"({"error":{"code":429,"message":"Resource has been exhausted",)"
                    R"("status":"RESOURCE_EXHAUSTED","details":[{"@type":)"
                    R"("type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}})"},
                   absl::OkStatus(), 429));
  GoogleProvider provider(Model(), http, "k");
  harness::RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider.Stream(Request(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "HTTP 429: Resource has been exhausted");
  EXPECT_THAT(sink.texts(), ElementsAre("error rate_limited retryable before_output http=429 "
                                        "type= code=RESOURCE_EXHAUSTED retry_after=34400"));
}

TEST(GoogleProviderTest, MidstreamError) {
  harness::RecordingSink sink;
  absl::Status status =
      harness::StreamOnce(Make, harness::Sse({ReadGeminiFixture("05-midstream-error")}), sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "The model is overloaded. Please try again later.");
  harness::ExpectStreamInvariants(sink.events);
}

TEST(GoogleProviderTest, CancellationFromTheSinkEndsTheStream) {
  harness::ExpectCancelFromTheSink(
      Make, harness::Sse(SplitEvery(ReadGeminiFixture("01-text"), 40)),
      {"start gT1 gemini-test", "text 0 [Hello]",
       // Only the prompt count of an unfinished answer is final.
       "usage in=12 out=? cache_read=? cache_write=? reasoning=?",
       "error cancelled final after_output http=0 type= code= retry_after=?"});
}

TEST(GoogleProviderTest, CancellationFromAnotherThreadWhileWaiting) {
  harness::ExpectCancelFromAnotherThreadWhileWaiting(Make);
}

TEST(GoogleProviderTest, AlreadyCancelledSendsNothing) {
  harness::ExpectAlreadyCancelledSendsNothing(Make);
}

TEST(GoogleProviderTest, TransportOutcomes) {
  std::vector<harness::TransportCase> cases = harness::CommonTransportCases(
      ReadGeminiFixture("06-cutoff"), "clean EOF without finishReason");
  cases.push_back({"connection reset after the finishReason chunk",
                   harness::Sse({ReadGeminiFixture("01-text")}, absl::UnavailableError("reset")),
                   "finish stop raw=STOP", absl::StatusCode::kOk});
  harness::ExpectTransportOutcomes(Make, cases);
}

TEST(GoogleProviderTest, JsonArrayBodyWithoutSse) {
  harness::FakeHttpResponse response =
      harness::Sse({R"([{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},)"
                    R"("finishReason":"STOP"}],"responseId":"j1","modelVersion":"m"}])"});
  response.headers = {{"Content-Type", "application/json; charset=UTF-8"}};
  harness::RecordingSink sink;
  EXPECT_TRUE(harness::StreamOnce(Make, response, sink).ok());
  EXPECT_THAT(sink.texts(), ElementsAre("start j1 m", "text 0 [Hi]", "finish stop raw=STOP"));
}

TEST(GoogleProviderTest, HtmlErrorFromAProxy) {
  harness::FakeHttpResponse response =
      harness::Sse({"<html>Bad gateway</html>"}, absl::OkStatus(), 502);
  response.headers = {{"content-type", "text/html"}};
  harness::RecordingSink sink;
  absl::Status status = harness::StreamOnce(Make, response, sink);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "HTTP 502: Bad gateway");
}

// A tool call's name counts against the cap.
TEST(GoogleProviderTest, ToolCallNamesCountAgainstTheByteCap) {
  harness::ExpectHeldBytesCountAgainstTheCap(
      [](http::HttpClient& http) {
        config::ModelConfig model = Model();
        model.max_response_bytes = 1024;
        return std::make_unique<GoogleProvider>(model, http, "k");
      },
      {R"(data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":")" +
       std::string(2000, 'n') + R"(","args":{}}}],"role":"model"}}],"responseId":"r"})" + "\n\n"});
}

}  // namespace
}  // namespace raw::providers::google
