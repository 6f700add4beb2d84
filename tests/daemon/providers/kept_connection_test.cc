// A streamed answer ends at its terminal event, and the connection it came
// on is kept for the next request when the server ends the response there,
// as providers do. Real libcurl (CurlHttpClient) against the fake provider
// on 127.0.0.1, which counts the connections it accepted.
#include <string>

#include "absl/status/status.h"
#include "common/cancel_token.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/providers/openai_chat/openai_chat_provider.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/providers/provider_test_harness.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"

namespace raw::providers {
namespace {

namespace chat = ::raw::testing::chat;
namespace harness = ::raw::providers::testing;
using ::raw::testing::FakeProviderServer;
using ::raw::testing::ScriptedResponse;

class KeptConnectionTest : public ::testing::Test {
 protected:
  KeptConnectionTest() : provider_(Model(server_.base_url()), http_, "k") {}

  // No idle timeout: a stream that waited for a held response to end would
  // never return.
  static config::ModelConfig Model(const std::string& base_url) {
    config::ModelConfig model =
        harness::TestModel("gpt", "openai", config::kMethodOpenAiChat, "gpt-test", base_url);
    model.idle_timeout_ms = 0;
    return model;
  }

  // One request; the text of its answer.
  std::string Ask() {
    harness::RecordingSink sink;
    CancelToken cancel;
    absl::Status status = provider_.Stream(harness::HelloRequest(), sink, cancel);
    EXPECT_TRUE(status.ok()) << status;
    std::string text;
    for (const ProviderEvent& event : sink.events) {
      if (const auto* delta = std::get_if<TextDeltaEvent>(&event)) text += delta->text;
    }
    return text;
  }

  static ScriptedResponse KeptOpen(ScriptedResponse response) {
    response.end = ScriptedResponse::End::kKeepOpen;
    return response;
  }

  FakeProviderServer server_;
  http::CurlHttpClient http_;
  openai_chat::OpenAiChatProvider provider_;
};

TEST_F(KeptConnectionTest, AnAnswerThatEndsAtItsLastEventKeepsItsConnection) {
  server_.Enqueue(KeptOpen(chat::TextAnswer("one")));
  server_.Enqueue(KeptOpen(chat::TextAnswer("two")));
  server_.Enqueue(KeptOpen(chat::TextAnswer("three")));
  EXPECT_EQ(Ask(), "one");
  EXPECT_EQ(Ask(), "two");
  EXPECT_EQ(Ask(), "three");
  EXPECT_EQ(server_.requests().size(), 3u);
  EXPECT_EQ(server_.connections(), 1u);
}

// A server that holds the response open after the terminal event (never
// released before Stream returns, and no idle timeout): the answer is
// complete all the same and the stream ends; the connection, its response
// unfinished, is not kept.
TEST_F(KeptConnectionTest, AResponseHeldOpenAfterItsLastEventEndsTheStreamAnyway) {
  ScriptedResponse held = KeptOpen(chat::TextAnswer("held"));
  held.gate_before_chunk = held.chunks.size();
  server_.Enqueue(held);
  server_.Enqueue(KeptOpen(chat::TextAnswer("next")));
  EXPECT_EQ(Ask(), "held");
  ASSERT_TRUE(server_.WaitForGate()) << "the response was held after its last event";
  server_.ReleaseGate();
  EXPECT_EQ(Ask(), "next");
  EXPECT_EQ(server_.connections(), 2u);
}

// Bytes after the terminal event are never decoded; more of them than the
// client's limit end the response at once, and its connection is closed.
TEST_F(KeptConnectionTest, BytesAfterTheLastEventAreDroppedUpToALimit) {
  ScriptedResponse chatty = KeptOpen(chat::TextAnswer("first"));
  const std::string noise = "data: {\"choices\":[{\"delta\":{\"content\":\"NEVER\"}}]}\n\n";
  chatty.chunks.push_back(noise);
  chatty.repeat_chunk = chatty.chunks.size() - 1;
  chatty.repeat_times = 10000;  // about 500 KB
  server_.Enqueue(chatty);
  server_.Enqueue(KeptOpen(chat::TextAnswer("second")));
  EXPECT_EQ(Ask(), "first");
  EXPECT_EQ(Ask(), "second");
  EXPECT_EQ(server_.connections(), 2u);
}

}  // namespace
}  // namespace raw::providers
