// Test harness shared by the adapter tests that drive a Provider through
// FakeHttpClient: the SSE fixtures, scripted responses, a recording sink,
// and the scenarios every adapter must handle the same way (cancellation,
// transport outcomes, HTTP error bodies), each checked with gtest
// assertions. The API-specific expectations stay in each adapter's test.
//
// Header-only (each provider test binary globs only its own directory, so
// they include this by path, like event_text.h). Not thread-safe except
// where a scenario says so.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/event_text.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::providers::testing {

using ::raw::testing::FakeHttpClient;
using ::raw::testing::FakeHttpResponse;

// A response of `chunks` with status `status` (text/event-stream), after
// which Send returns `end`.
inline FakeHttpResponse Sse(std::vector<std::string> chunks, absl::Status end = absl::OkStatus(),
                            int status = 200) {
  FakeHttpResponse response;
  response.status = status;
  response.chunks = std::move(chunks);
  response.end_status = std::move(end);
  return response;
}

// The settings every adapter test starts from: the given identity, an idle
// timeout of 1234 ms and a connect timeout of 567 ms.
inline config::ModelConfig TestModel(std::string name, std::string provider, std::string method,
                                     std::string model_id, std::string base_url) {
  config::ModelConfig model;
  model.name = std::move(name);
  model.provider = std::move(provider);
  model.method = std::move(method);
  model.model_id = std::move(model_id);
  model.base_url = std::move(base_url);
  model.idle_timeout_ms = 1234;
  model.connect_timeout_ms = 567;
  return model;
}

// System prompt "sys" and one user message "hello".
inline ModelRequest HelloRequest() {
  ModelRequest request;
  request.system_prompt = "sys";
  request.messages = {events::UserText{"hello"}};
  return request;
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

// A fresh provider of the adapter under test, sending through `http`.
using ProviderMaker = std::function<std::unique_ptr<Provider>(http::HttpClient& http)>;

// Runs one Stream() of a provider made over a client scripted with
// `response`; `sink` receives the events.
inline absl::Status StreamOnce(const ProviderMaker& make, FakeHttpResponse response,
                               RecordingSink& sink) {
  FakeHttpClient http;
  http.Enqueue(std::move(response));
  std::unique_ptr<Provider> provider = make(http);
  CancelToken cancel;
  return provider->Stream(HelloRequest(), sink, cancel);
}

// The sink cancels at the first text delta while the server holds the rest
// of `response` back: the stream ends kCancelled, its events are `expected`
// (the last an "error cancelled ... after_output"), and the error says why.
inline void ExpectCancelFromTheSink(const ProviderMaker& make, FakeHttpResponse response,
                                    const std::vector<std::string>& expected) {
  FakeHttpClient http;
  http.Enqueue(std::move(response));
  std::unique_ptr<Provider> provider = make(http);
  RecordingSink sink;
  CancelToken cancel;
  sink.on_event = [&cancel](const ProviderEvent& event) {
    if (std::holds_alternative<TextDeltaEvent>(event)) cancel.Cancel("user interrupt");
  };
  absl::Status status = provider->Stream(HelloRequest(), sink, cancel);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(sink.texts(), expected);
  ASSERT_FALSE(sink.events.empty());
  EXPECT_THAT(std::get<ErrorEvent>(sink.events.back()).message,
              ::testing::HasSubstr("user interrupt"));
}

// Another thread cancels while the transfer waits for its first byte: the
// stream ends kCancelled with one error event and nothing else.
inline void ExpectCancelFromAnotherThreadWhileWaiting(const ProviderMaker& make) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse({});
  response.hold_after_chunks = 0;
  http.Enqueue(response);
  std::unique_ptr<Provider> provider = make(http);
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status;
  std::thread streamer([&] { status = provider->Stream(HelloRequest(), sink, cancel); });
  http.WaitUntilHeld();
  cancel.Cancel();
  streamer.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(sink.texts(), ::testing::ElementsAre("error cancelled final before_output http=0 "
                                                   "type= code= retry_after=?"));
}

// A token cancelled before Stream(): nothing is sent, one kCancelled error.
inline void ExpectAlreadyCancelledSendsNothing(const ProviderMaker& make) {
  FakeHttpClient http;
  std::unique_ptr<Provider> provider = make(http);
  RecordingSink sink;
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(provider->Stream(HelloRequest(), sink, cancel).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(http.requests().empty());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(std::get<ErrorEvent>(sink.events[0]).kind, ErrorKind::kCancelled);
}

// The server keeps the connection open after `body` (and would then send
// `more`): reading stops at the terminal event, which is `last_event`.
inline void ExpectStopsReadingAfterTheTerminalEvent(const ProviderMaker& make,
                                                    const std::string& body,
                                                    const std::string& more,
                                                    const std::string& last_event) {
  FakeHttpResponse response = Sse({body, more});
  response.hold_after_chunks = 2;
  RecordingSink sink;
  EXPECT_TRUE(StreamOnce(make, response, sink).ok());
  ASSERT_FALSE(sink.events.empty());
  EXPECT_EQ(sink.texts().back(), last_event);
}

// models.<name>.max_response_bytes, which `make` sets to 1024, counts what
// the decoder keeps back from the events too: the server sends `chunks`
// (whose bytes become no counted event) and then holds the connection open,
// and the stream still ends at once with the cap's error, not retried.
inline void ExpectHeldBytesCountAgainstTheCap(const ProviderMaker& make,
                                              const std::vector<std::string>& chunks) {
  FakeHttpClient http;
  FakeHttpResponse response = Sse(chunks);
  response.hold_after_chunks = chunks.size();
  http.Enqueue(response);
  std::unique_ptr<Provider> provider = make(http);
  RecordingSink sink;
  CancelToken cancel;
  absl::Status status = provider->Stream(HelloRequest(), sink, cancel);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("exceeded 1024 bytes"));
  ASSERT_FALSE(sink.events.empty());
  const auto* error = std::get_if<ErrorEvent>(&sink.events.back());
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(error->retryable);
}

// A 200 `content_type` JSON `body` (a server that ignored stream:true),
// arriving in 5-byte pieces, is decoded whole into `expected`.
inline void ExpectJsonBodyDecodedWhole(const ProviderMaker& make, const std::string& body,
                                       const std::string& content_type,
                                       const std::vector<std::string>& expected) {
  FakeHttpResponse response = Sse(::raw::testing::SplitEvery(body, 5));
  response.headers = {{"Content-Type", content_type}};
  RecordingSink sink;
  EXPECT_TRUE(StreamOnce(make, response, sink).ok());
  EXPECT_EQ(sink.texts(), expected);
}

struct TransportCase {
  std::string name;
  FakeHttpResponse response;
  std::string last_event;  // EventText of the terminal event
  absl::StatusCode code;
  std::string message_part = "";  // when set, the status message contains it
};

// The transport outcomes every adapter maps alike, given a body `cutoff`
// that ends mid-stream (after some output, before the terminator):
// connection refused, a refused TLS certificate, connect and idle
// timeouts, a 200 with an empty body, an HTML page with status 200, cut
// off mid-body, and a clean EOF without the terminator (named `eof_case`).
inline std::vector<TransportCase> CommonTransportCases(const std::string& cutoff,
                                                       const std::string& eof_case) {
  const std::string eof =
      "error premature_eof retryable after_output http=0 type= code= retry_after=?";
  FakeHttpResponse page = Sse({"<!DOCTYPE html><html><head><title>Sign in</title></head>",
                               "<body><form></form></body></html>"});
  page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  FakeHttpResponse plain_page =
      Sse({"\n  <html><head><title>Sign in</title></head>", "<body><form></form></body></html>"});
  plain_page.headers = {{"Content-Type", "text/plain"}};
  return {
      {"connection refused",
       Sse({}, absl::UnavailableError("cannot connect to 127.0.0.1:9: Connection refused"),
           /*status=*/0),
       "error network retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable, "Connection refused"},
      {"TLS certificate refused",
       Sse({},
           absl::FailedPreconditionError(
               "the TLS certificate of 127.0.0.1:9 was refused: self-signed certificate"),
           /*status=*/0),
       "error network final before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable, "the TLS certificate of 127.0.0.1:9 was refused"},
      {"connect timeout",
       Sse({}, absl::DeadlineExceededError("connecting to 127.0.0.1:9 timed out after 567 ms: x"),
           /*status=*/0),
       "error timeout retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kDeadlineExceeded, "failed: connecting to 127.0.0.1:9 timed out"},
      {"idle timeout",
       Sse({}, absl::DeadlineExceededError("no data from 127.0.0.1:9 for 1234 ms (idle timeout)")),
       "error timeout retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kDeadlineExceeded, "for 1234 ms (models."},
      {"a 200 with an empty body", Sse({}),
       "error premature_eof retryable before_output http=0 type= code= retry_after=?",
       absl::StatusCode::kUnavailable, "(HTTP 200) had an empty body"},
      {"an HTML page with status 200", page,
       "error unknown final before_output http=200 type= code= retry_after=?",
       absl::StatusCode::kUnknown,
       "answered with a text/html page instead of a model response "
       "(HTTP 200: Sign in)"},
      {"an HTML page labelled text/plain", plain_page,
       "error unknown final before_output http=200 type= code= retry_after=?",
       absl::StatusCode::kUnknown,
       "answered with a markup (text/plain) page instead of a model "
       "response (HTTP 200: Sign in)"},
      {"cut off mid-body", Sse({cutoff}, absl::UnavailableError("reset")), eof,
       absl::StatusCode::kUnavailable},
      {eof_case, Sse({cutoff}), eof, absl::StatusCode::kUnavailable},
  };
}

// Each case through a fresh client and provider: the status code, the last
// event, and the stream invariants of provider_event.h.
inline void ExpectTransportOutcomes(const ProviderMaker& make,
                                    const std::vector<TransportCase>& cases) {
  for (const TransportCase& c : cases) {
    RecordingSink sink;
    absl::Status status = StreamOnce(make, c.response, sink);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status;
    if (!c.message_part.empty()) {
      EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr(c.message_part)) << c.name;
    }
    ASSERT_FALSE(sink.events.empty()) << c.name;
    EXPECT_EQ(sink.texts().back(), c.last_event) << c.name;
    ExpectStreamInvariants(sink.events);
  }
}

struct HttpErrorCase {
  std::string name;
  int status;
  http::Headers headers;
  std::string body;
  std::string event;  // EventText of the one event
  std::string message;
  absl::StatusCode code;
  // Checked when set: the request id the error carries.
  std::optional<std::string> request_id;
};

// Each error response (its body delivered in 5-byte pieces) ends the stream
// with exactly one event, before any Start, carrying the provider's message.
inline void ExpectHttpErrors(const ProviderMaker& make, const std::vector<HttpErrorCase>& cases) {
  for (const HttpErrorCase& c : cases) {
    FakeHttpResponse response =
        Sse(::raw::testing::SplitEvery(c.body, 5), absl::OkStatus(), c.status);
    response.headers = c.headers;
    RecordingSink sink;
    absl::Status status = StreamOnce(make, response, sink);
    EXPECT_EQ(status, absl::Status(c.code, c.message)) << c.name;
    EXPECT_THAT(sink.texts(), ::testing::ElementsAre(c.event)) << c.name;
    ASSERT_EQ(sink.events.size(), 1u) << c.name;
    const auto& error = std::get<ErrorEvent>(sink.events[0]);
    EXPECT_EQ(error.message, c.message) << c.name;
    if (c.request_id.has_value()) {
      EXPECT_EQ(error.request_id, *c.request_id) << c.name;
    }
  }
}

}  // namespace raw::providers::testing
