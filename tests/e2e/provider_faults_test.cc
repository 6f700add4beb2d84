// Faults through each of the four model APIs, end to end: a real rawd and
// real libcurl against the fake provider, with the API's own stream shape
// (tests/fixtures/sse) and its own error bodies. For every API: an
// interrupt mid-stream aborts the transfer and keeps the text shown so far;
// a 503 is retried once, visibly; a 401 ends the turn at once with the
// provider's message.
#include <ostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;

struct FaultCase {
  std::string method;
  std::string provider;         // the config's provider label
  std::string fixture_dir;      // under tests/fixtures/sse
  std::string overloaded_body;  // the API's body for a 503
  std::string auth_body;        // the API's body for a 401
  std::string auth_message;     // the provider's message in auth_body
};
// Test names and failure messages show the method, not the struct's bytes.
void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.method; }


// OpenAI's bodies, the same on Chat Completions and Responses.
constexpr char kOpenAiOverloaded[] =
    R"({"error":{"message":"The server is overloaded.","type":"server_error","param":null,)"
    R"("code":"server_is_overloaded"}})";
constexpr char kOpenAiBadKey[] =
    R"({"error":{"message":"Incorrect API key provided: sk-test***key.",)"
    R"("type":"invalid_request_error","param":null,"code":"invalid_api_key"}})";
constexpr char kOpenAiBadKeyMessage[] = "Incorrect API key provided: sk-test***key.";

const FaultCase kCases[] = {
    {"openai-chat-completions", "openai", "chat", kOpenAiOverloaded, kOpenAiBadKey,
     kOpenAiBadKeyMessage},
    {"openai-responses", "openai", "responses", kOpenAiOverloaded, kOpenAiBadKey,
     kOpenAiBadKeyMessage},
    {"anthropic-messages", "anthropic", "anthropic",
     R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},)"
     R"("request_id":"req_011"})",
     R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},)"
     R"("request_id":"req_012"})",
     "invalid x-api-key"},
    {"google-generate-content", "google", "gemini",
     R"({"error":{"code":503,"message":"The model is overloaded. Please try again later.",)"
     R"("status":"UNAVAILABLE"}})",
     R"({"error":{"code":401,"message":"Request had invalid authentication credentials.",)"
     R"("status":"UNAUTHENTICATED"}})",
     "Request had invalid authentication credentials."},
};

// The fixture's events, one chunk each.
testing::ScriptedResponse Replay(const FaultCase& api, const std::string& name) {
  testing::ScriptedResponse response;
  response.chunks = testing::SplitSseEvents(testing::ReadSseFixture(api.fixture_dir, name));
  return response;
}

testing::ScriptedResponse ErrorResponse(int status, std::string body) {
  testing::ScriptedResponse response;
  response.status = status;
  response.headers = {{"Content-Type", "application/json"}};
  response.chunks = {std::move(body)};
  return response;
}

class ProviderFaultTest : public ::testing::TestWithParam<FaultCase> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    const FaultCase& api = GetParam();
    std::string config = absl::StrReplaceAll(
        TestConfig(fake_.base_url()),
        {{"openai-chat-completions", api.method},
         {R"("provider": "openai")", absl::StrCat(R"("provider": ")", api.provider, "\"")}});
    daemon_ = std::make_unique<TestDaemon>(config);
    absl::Status started = daemon_->Start();
    ASSERT_TRUE(started.ok()) << started << "\n" << daemon_->ReadStderr();
    session_ = daemon_->CreateSession();
  }

  raw::v1::Raw::Stub& stub() { return daemon_->stub(); }

  // InterruptTurn on the session; true when a turn was running.
  bool Interrupt() {
    raw::v1::InterruptTurnRequest request;
    request.set_session_id(session_);
    request.set_lease_id(LeaseFor(stub(), session_));
    raw::v1::InterruptTurnResponse response;
    grpc::ClientContext context;
    return stub().InterruptTurn(&context, request, &response).ok() && response.interrupted();
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
  std::string session_;
};

TEST_P(ProviderFaultTest, InterruptMidStreamAbortsTheTransferAndKeepsTheShownText) {
  testing::ScriptedResponse answer = Replay(GetParam(), "01-text");
  // Park the stream right after the event that carries the first text.
  for (size_t i = 0; i < answer.chunks.size() && !answer.gate_before_chunk; ++i) {
    if (answer.chunks[i].find("Hello") != std::string::npos) answer.gate_before_chunk = i + 1;
  }
  ASSERT_TRUE(answer.gate_before_chunk.has_value());
  fake_.Enqueue(answer);

  EventStream stream(stub(), session_);
  std::string turn = StartTurn(stub(), session_, "Say hello");
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_text_delta(); }));
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_TRUE(Interrupt());
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_CANCELLED);
  // The turn ended while the response was still parked: the daemon closed
  // the connection instead of waiting for the rest.
  EXPECT_TRUE(fake_.WaitForClientCloseAtGate()) << "the transfer was not aborted";

  std::string shown, committed;
  int ends = 0;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_text_delta()) shown += e.text_delta().text();
    if (e.has_assistant_message()) committed += e.assistant_message().text();
    EXPECT_FALSE(e.has_stream_reset());
    ends += e.has_turn_ended() ? 1 : 0;
  }
  EXPECT_EQ(shown, "Hello");
  EXPECT_EQ(committed, shown) << "the partial text is kept as the display showed it";
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(fake_.requests().size(), 1u);
  fake_.ReleaseGate();
}

TEST_P(ProviderFaultTest, OverloadedIsRetriedOnceVisibly) {
  testing::ScriptedResponse overloaded = ErrorResponse(503, GetParam().overloaded_body);
  overloaded.headers.push_back({"retry-after-ms", "20"});
  fake_.Enqueue(overloaded);
  fake_.Enqueue(Replay(GetParam(), "01-text"));

  EventStream stream(stub(), session_);
  std::string turn = StartTurn(stub(), session_, "Say hello");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();

  std::vector<std::string> notices;
  std::string committed;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_notice()) notices.push_back(e.notice().text());
    if (e.has_assistant_message()) committed += e.assistant_message().text();
  }
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_THAT(notices[0], HasSubstr("Retrying"));
  EXPECT_THAT(notices[0], HasSubstr("503"));
  EXPECT_EQ(committed, "Hello, world.");
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body, requests[1].body) << "a retry sends the same bytes";
  EXPECT_EQ(fake_.unscripted_requests(), 0u);
}

TEST_P(ProviderFaultTest, BadKeyEndsTheTurnWithTheProvidersMessage) {
  fake_.Enqueue(ErrorResponse(401, GetParam().auth_body));

  EventStream stream(stub(), session_);
  std::string turn = StartTurn(stub(), session_, "Say hello");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(end->turn_ended().message(), HasSubstr(GetParam().auth_message));
  EXPECT_THAT(end->turn_ended().message(), HasSubstr("401"));
  for (const auto& e : stream.TurnEvents(turn)) {
    EXPECT_FALSE(e.has_notice()) << "not retried: " << e.notice().text();
    EXPECT_FALSE(e.has_assistant_message());
  }
  EXPECT_EQ(fake_.requests().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(AllApis, ProviderFaultTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<FaultCase>& param) {
                           return param.param.fixture_dir;
                         });

}  // namespace
}  // namespace raw::e2e
