#include "tests/e2e/fault_matrix_fixture.h"

#include <optional>
#include <utility>

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;

// OpenAI's bodies, the same on Chat Completions and Responses.
constexpr char kOpenAiRateLimit[] =
    R"({"error":{"message":"Rate limit reached for gpt-test on requests per min (RPM): Limit 3, )"
    R"(Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}})";
constexpr char kOpenAiRateLimitMessage[] = "Rate limit reached for gpt-test on requests per min";
constexpr char kOpenAiServerError[] =
    R"({"error":{"message":"The server had an error while processing your request. Sorry about )"
    R"(that!","type":"server_error","param":null,"code":null}})";
constexpr char kOpenAiServerErrorMessage[] =
    "The server had an error while processing your request";
constexpr char kOpenAiInvalid[] =
    R"({"error":{"message":"Invalid 'input': the conversation must not be empty.",)"
    R"("type":"invalid_request_error","param":"input","code":"empty_array"}})";
constexpr char kOpenAiInvalidMessage[] = "Invalid 'input': the conversation must not be empty.";

std::vector<ApiCase> MakeCases() {
  std::vector<ApiCase> cases;
  cases.push_back({"openai-chat-completions", "openai", "chat", kOpenAiRateLimit,
                   kOpenAiRateLimitMessage, kOpenAiServerError, kOpenAiServerErrorMessage,
                   kOpenAiInvalid, kOpenAiInvalidMessage,
                   R"({"id":"chatcmpl-J1","object":"chat.completion","created":1760000000,)"
                   R"("model":"gpt-test","choices":[{"index":0,"message":{"role":"assistant",)"
                   R"("content":"Plain JSON."},"finish_reason":"stop"}],)"
                   R"("usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}})"});
  cases.push_back({"openai-responses", "openai", "responses", kOpenAiRateLimit,
                   kOpenAiRateLimitMessage, kOpenAiServerError, kOpenAiServerErrorMessage,
                   kOpenAiInvalid, kOpenAiInvalidMessage,
                   R"({"id":"resp_J1","object":"response","created_at":1760000000,)"
                   R"("status":"completed","model":"gpt-test","output":[{"id":"msg_J1",)"
                   R"("type":"message","status":"completed","role":"assistant","content":[)"
                   R"({"type":"output_text","annotations":[],"text":"Plain JSON."}]}],)"
                   R"("usage":{"input_tokens":12,"output_tokens":3,"total_tokens":15},)"
                   R"("error":null,"incomplete_details":null})"});
  cases.push_back(
      {"anthropic-messages", "anthropic", "anthropic",
       R"({"type":"error","error":{"type":"rate_limit_error","message":"This request would )"
       R"(exceed the rate limit for your organization of 50 requests per minute."},)"
       R"("request_id":"req_021"})",
       "This request would exceed the rate limit for your organization",
       R"({"type":"error","error":{"type":"api_error","message":"Internal server error"},)"
       R"("request_id":"req_022"})",
       "Internal server error",
       R"({"type":"error","error":{"type":"invalid_request_error","message":"messages: at )"
       R"(least one message is required"},"request_id":"req_023"})",
       "messages: at least one message is required",
       R"({"id":"msg_J1","type":"message","role":"assistant","model":"claude-test",)"
       R"("content":[{"type":"text","text":"Plain JSON."}],"stop_reason":"end_turn",)"
       R"("stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":3}})"});
  cases.push_back(
      {"google-generate-content", "google", "gemini",
       R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).",)"
       R"("status":"RESOURCE_EXHAUSTED"}})",
       "Resource has been exhausted (e.g. check quota).",
       R"({"error":{"code":500,"message":"An internal error has occurred. Please retry or )"
       R"(report in https://developers.generativeai.google/guide/troubleshooting",)"
       R"("status":"INTERNAL"}})",
       "An internal error has occurred.",
       R"({"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not )"
       R"(specified\n","status":"INVALID_ARGUMENT"}})",
       "GenerateContentRequest.contents: contents is not specified",
       R"({"candidates":[{"content":{"parts":[{"text":"Plain JSON."}],"role":"model"},)"
       R"("finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,)"
       R"("candidatesTokenCount":3,"totalTokenCount":15},"modelVersion":"gemini-test"})"});
  return cases;
}

}  // namespace

const std::vector<ApiCase>& AllApiCases() {
  static const std::vector<ApiCase>* cases = new std::vector<ApiCase>(MakeCases());
  return *cases;
}

std::string ApiCaseName(const ::testing::TestParamInfo<ApiCase>& info) {
  return info.param.fixture_dir;
}

void FaultMatrixTest::StartDaemon(const std::string& model_extra, const std::string& base_url) {
  ASSERT_TRUE(fake_.status().ok()) << fake_.status();
  const ApiCase& api = GetParam();
  std::string config = absl::StrReplaceAll(
      TestConfig(base_url.empty() ? fake_.base_url() : base_url),
      {{"openai-chat-completions", api.method},
       {R"("provider": "openai")", absl::StrCat(R"("provider": ")", api.provider, "\"")},
       {R"("api_key_env": "RAW_TEST_KEY")",
        absl::StrCat(R"("api_key_env": "RAW_TEST_KEY")", model_extra.empty() ? "" : ", ",
                     model_extra)}});
  daemon_ = std::make_unique<TestDaemon>(config);
  absl::Status started = daemon_->Start();
  ASSERT_TRUE(started.ok()) << started << "\n" << daemon_->ReadStderr();
  session_ = daemon_->CreateSession();
  stream_ = std::make_unique<EventStream>(stub(), session_);
}

TurnOutcome FaultMatrixTest::RunTurn(std::chrono::seconds limit) {
  TurnOutcome outcome;
  std::string turn = StartTurn(stub(), session_, "Say hello");
  std::optional<raw::v1::Event> end = stream_->WaitForTurnEnd(turn, limit);
  if (!end.has_value()) {
    ADD_FAILURE() << "the turn did not end within " << limit.count() << " s";
    return outcome;
  }
  outcome.ended = true;
  outcome.end = end->turn_ended();
  for (const raw::v1::Event& e : stream_->TurnEvents(turn)) {
    if (e.has_notice()) outcome.notices.push_back(e.notice().text());
    if (e.has_stream_reset()) ++outcome.stream_resets;
    if (e.has_assistant_message()) outcome.committed += e.assistant_message().text();
    if (e.has_tool_call_batch()) ++outcome.tool_call_batches;
    if (e.has_tool_started()) ++outcome.tools_started;
  }
  return outcome;
}

testing::ScriptedResponse FaultMatrixTest::Replay(const std::string& name) const {
  testing::ScriptedResponse response;
  response.chunks =
      testing::SplitSseEvents(testing::ReadSseFixture(GetParam().fixture_dir, name));
  return response;
}

testing::ScriptedResponse FaultMatrixTest::BrokenReplay(testing::ScriptedResponse::End end) const {
  testing::ScriptedResponse response = Replay("01-text");
  std::vector<std::string> kept;
  for (const std::string& chunk : response.chunks) {
    kept.push_back(absl::StrReplaceAll(chunk, {{"Hello", kBrokenText}}));
    if (chunk.find("Hello") != std::string::npos) break;
  }
  response.chunks = std::move(kept);
  response.end = end;
  return response;
}

testing::ScriptedResponse FaultMatrixTest::ErrorResponse(int status, std::string body,
                                                         std::string content_type) {
  testing::ScriptedResponse response;
  response.status = status;
  response.headers = {{"Content-Type", std::move(content_type)}};
  response.chunks = {std::move(body)};
  return response;
}

void FaultMatrixTest::ExpectTheNextTurnCarriesNothingBroken(
    const std::vector<std::string>& broken) {
  const raw::v1::GetHistoryResponse history = History(stub(), session_);
  for (const raw::v1::Event& e : history.events()) {
    EXPECT_FALSE(e.has_tool_call_batch()) << e.DebugString();
    if (!e.has_assistant_message()) continue;
    for (const std::string& text : broken) {
      EXPECT_THAT(e.assistant_message().text(), ::testing::Not(HasSubstr(text)));
    }
  }
  const size_t before = fake_.requests().size();
  fake_.Enqueue(Replay("01-text"));
  TurnOutcome next = RunTurn();
  ASSERT_TRUE(next.ended);
  EXPECT_EQ(next.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << next.end.message();
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_EQ(requests.size(), before + 1);
  for (const std::string& text : broken) {
    EXPECT_THAT(requests.back().body, ::testing::Not(HasSubstr(text)));
  }
}

}  // namespace raw::e2e
