// One tool-calling turn through each of the four model APIs, end to end:
// real rawd, real libcurl, the fake provider replaying the recorded-shape
// fixtures of tests/fixtures/sse. Asserts what goes over the wire.
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>

#include "daemon/raven/prompt.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/tests/fixtures/sse/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixture's events, one chunk each.
testing::ScriptedResponse Replay(const std::string& name) {
  testing::ScriptedResponse r;
  std::string text = Fixture(name);
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find("\n\n", at);
    end = end == std::string::npos ? text.size() : end + 2;
    r.chunks.push_back(text.substr(at, end - at));
    at = end;
  }
  return r;
}

struct ApiCase {
  std::string method;
  std::string fixture_dir;
  std::string history_key;  // where the conversation goes in the body
  std::string auth_header;
  std::string auth_value;
  std::string provider;  // the config's provider label
  // Checks the second request: the tool results' shape and the cache fields.
  std::function<void(const Json& body)> check_second;
  std::string max_tokens_fixture;  // an answer cut at the output limit
  // A signature (or encrypted reasoning) in 02-parallel-tools.sse; empty
  // for an API without signed state.
  std::string signature;
};
// Test names and failure messages show the method, not the struct's bytes.
void PrintTo(const ApiCase& c, std::ostream* os) { *os << c.method; }


// The last element of `history` whose `key` equals `value`.
const Json* Last(const Json& history, const std::string& key, const std::string& value) {
  const Json* found = nullptr;
  for (const auto& item : history) {
    if (item.is_object() && item.value(key, "") == value) found = &item;
  }
  return found;
}

void CheckChat(const Json& body) {
  EXPECT_TRUE(body.contains("prompt_cache_key"));
  const Json& msgs = body["messages"];
  EXPECT_EQ(msgs[0]["role"], "developer");
  const Json* tool = Last(msgs, "role", "tool");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ((*tool)["tool_call_id"], "call_B");
  EXPECT_EQ(msgs[msgs.size() - 2]["tool_call_id"], "call_A");
}

void CheckResponses(const Json& body) {
  EXPECT_TRUE(body.contains("prompt_cache_key"));
  EXPECT_EQ(body["store"], false);
  const Json* out = Last(body["input"], "type", "function_call_output");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ((*out)["call_id"], "call_B");
  const Json* call = Last(body["input"], "type", "function_call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ((*call)["name"], "read_file");
}

void CheckAnthropic(const Json& body) {
  EXPECT_FALSE(body.contains("prompt_cache_key"));
  ASSERT_TRUE(body.contains("cache_control"));
  EXPECT_EQ(body["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(body["system"], "You are a test agent." + raven::PromptSection());
  const Json& last = body["messages"].back();
  EXPECT_EQ(last["role"], "user");
  ASSERT_GE(last["content"].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(last["content"][i]["type"], "tool_result");
  // The fixture's third call is list_dir without arguments: it lists the cwd.
  EXPECT_FALSE(last["content"][2].value("is_error", false));
  EXPECT_THAT(last["content"][2]["content"].dump(), ::testing::HasSubstr("a.txt"));
}

void CheckGoogle(const Json& body) {
  EXPECT_FALSE(body.contains("prompt_cache_key"));
  EXPECT_FALSE(body.contains("cachedContent"));
  const Json& last = body["contents"].back();
  EXPECT_EQ(last["role"], "user");
  ASSERT_EQ(last["parts"].size(), 2u) << "all results of a step in one content, in call order";
  EXPECT_EQ(last["parts"][0]["functionResponse"]["name"], "read_file");
  EXPECT_EQ(body["contents"][body["contents"].size() - 2]["role"], "model");
}

class ProviderApiTest : public ::testing::TestWithParam<ApiCase> {
 protected:
  // The fake provider and a started daemon configured for the case's API,
  // with a second model "other" (model_id "other-model") of the same API.
  void StartDaemon() {
    const ApiCase& api = GetParam();
    ASSERT_TRUE(fake_.status().ok());
    std::string config = absl::StrReplaceAll(
        TestConfig(fake_.base_url()),
        {{R"("models": {)",
          absl::StrCat(R"("models": {
    "other": { "provider": "openai", "method": "openai-chat-completions",
               "model_id": "other-model", "base_url": ")",
                       fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY" },)")}});
    config = absl::StrReplaceAll(config, {{"openai-chat-completions", api.method},
                                          {R"("provider": "openai")",
                                           absl::StrCat(R"("provider": ")", api.provider, "\"")}});
    daemon_ = std::make_unique<TestDaemon>(config);
    ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
};

TEST_P(ProviderApiTest, ToolCallingTurn) {
  const ApiCase& api = GetParam();
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  testing::FakeProviderServer& fake = fake_;
  TestDaemon& daemon = *daemon_;
  { std::ofstream(daemon.workdir() + "/a.txt") << "alpha\n"; }
  { std::ofstream(daemon.workdir() + "/b.txt") << "beta\n"; }
  fake.Enqueue(Replay(api.fixture_dir + "/02-parallel-tools.sse"));
  fake.Enqueue(Replay(api.fixture_dir + "/01-text.sse"));

  std::string session = daemon.CreateSession();
  EventStream stream(daemon.stub(), session);
  std::string turn = StartTurn(daemon.stub(), session, "Compare a.txt and b.txt");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();

  std::vector<std::string> contents;
  bool usage_seen = false;
  for (const auto& e : stream.TurnEvents(turn)) {
    // (The Anthropic fixture also calls list_dir.)
    if (e.has_tool_result() && e.tool_result().name() == "read_file") {
      EXPECT_EQ(e.tool_result().status(), raw::v1::TOOL_RESULT_STATUS_OK);
      contents.push_back(e.tool_result().content());
    }
    usage_seen = usage_seen || e.has_usage();
  }
  ASSERT_EQ(contents.size(), 2u);
  EXPECT_THAT(contents[0], HasSubstr("alpha"));
  EXPECT_THAT(contents[1], HasSubstr("beta"));
  EXPECT_TRUE(usage_seen);

  auto reqs = fake.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_THAT(reqs[0].Header(api.auth_header), HasSubstr(api.auth_value));
  auto first = reqs[0].BodyJson();
  auto second = reqs[1].BodyJson();
  ASSERT_TRUE(first.ok() && second.ok());
  // The results went back in the API's own shape, naming their calls.
  std::string history = (*second)[api.history_key].dump();
  EXPECT_THAT(history, HasSubstr("alpha"));
  EXPECT_THAT(history, HasSubstr("beta"));
  api.check_second(*second);
  // Everything but the conversation is the same bytes on both requests.
  Json a = *first, b = *second;
  a.erase(api.history_key);
  b.erase(api.history_key);
  EXPECT_EQ(a.dump(), b.dump());
  // And the second conversation extends the first.
  const Json& h1 = (*first)[api.history_key];
  const Json& h2 = (*second)[api.history_key];
  ASSERT_GT(h2.size(), h1.size());
  for (size_t i = 0; i < h1.size(); ++i) EXPECT_EQ(h1[i].dump(), h2[i].dump()) << i;
}

// Every API's output-limit finish (length, max_tokens, incomplete with
// max_output_tokens, MAX_TOKENS) is the turn's typed stop reason.
TEST_P(ProviderApiTest, AnswerCutAtTheOutputLimitStopsWithMaxTokens) {
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  fake_.Enqueue(Replay(GetParam().fixture_dir + "/" + GetParam().max_tokens_fixture));
  std::string session = daemon_->CreateSession();
  EventStream stream(daemon_->stub(), session);
  std::string turn = StartTurn(daemon_->stub(), session, "Tell me everything");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();
  EXPECT_EQ(end->turn_ended().stop_reason(), raw::v1::STOP_REASON_MAX_TOKENS);
}

// A model's signed state (thinking signatures, thought signatures,
// encrypted reasoning) goes back to it in later turns, also after rawd
// restarts, and stays behind once the session switches to another model,
// which a signature it did not make can make refuse the request; the
// answer and its tool results still go to the new model.
TEST_P(ProviderApiTest, SignedStateGoesBackOnlyToTheModelThatMadeIt) {
  const ApiCase& api = GetParam();
  if (api.signature.empty()) GTEST_SKIP() << api.method << " carries no signed state";
  ASSERT_NO_FATAL_FAILURE(StartDaemon());
  { std::ofstream(daemon_->workdir() + "/a.txt") << "alpha\n"; }
  { std::ofstream(daemon_->workdir() + "/b.txt") << "beta\n"; }
  fake_.Enqueue(Replay(api.fixture_dir + "/02-parallel-tools.sse"));
  fake_.Enqueue(Replay(api.fixture_dir + "/01-text.sse"));
  const std::string session = daemon_->CreateSession();
  auto run_turn = [&](const std::string& prompt) {
    EventStream stream(daemon_->stub(), session);
    const std::string turn = StartTurn(daemon_->stub(), session, prompt);
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value());
    EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
        << end->turn_ended().message();
  };
  ASSERT_NO_FATAL_FAILURE(run_turn("Compare a.txt and b.txt"));
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests().back().body, HasSubstr(api.signature));

  // A new daemon reads the item and its model back from the store.
  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start().ok()) << daemon_->ReadStderr();
  fake_.Enqueue(Replay(api.fixture_dir + "/01-text.sse"));
  ASSERT_NO_FATAL_FAILURE(run_turn("Again"));
  ASSERT_EQ(fake_.requests().size(), 3u);
  EXPECT_THAT(fake_.requests().back().body, HasSubstr(api.signature));

  raw::v1::ConfigureSessionRequest configure;
  configure.set_session_id(session);
  configure.set_lease_id(LeaseFor(daemon_->stub(), session));
  configure.set_model("other");
  raw::v1::ConfigureSessionResponse configured;
  grpc::ClientContext ctx;
  grpc::Status s = daemon_->stub().ConfigureSession(&ctx, configure, &configured);
  ASSERT_TRUE(s.ok()) << s.error_message();
  fake_.Enqueue(Replay(api.fixture_dir + "/01-text.sse"));
  ASSERT_NO_FATAL_FAILURE(run_turn("And with another model"));
  ASSERT_EQ(fake_.requests().size(), 4u);
  const testing::RecordedRequest last = fake_.requests().back();
  const std::string& body = last.body;
  // Gemini names the model in the path, the others in the body.
  EXPECT_THAT(last.path + body, HasSubstr("other-model"));
  EXPECT_THAT(body, Not(HasSubstr(api.signature)));
  EXPECT_THAT(body, HasSubstr("alpha"));
  EXPECT_THAT(body, HasSubstr("beta"));
}

INSTANTIATE_TEST_SUITE_P(
    AllApis, ProviderApiTest,
    ::testing::Values(
        ApiCase{"openai-chat-completions", "chat", "messages", "authorization",
                "Bearer sk-test-key", "openai", CheckChat, "04-length.sse", ""},
        ApiCase{"openai-responses", "responses", "input", "authorization", "Bearer sk-test-key",
                "openai", CheckResponses, "04-incomplete-max-tokens.sse", "gAAAAB-enc-final"},
        ApiCase{"anthropic-messages", "anthropic", "messages", "x-api-key", "sk-test-key",
                "anthropic", CheckAnthropic, "07-max-tokens-text.sse", "EqQBCkYIARgCsig"},
        ApiCase{"google-generate-content", "gemini", "contents", "x-goog-api-key", "sk-test-key",
                "google", CheckGoogle, "04-max-tokens.sse", "CiQBsig0"}),
    [](const ::testing::TestParamInfo<ApiCase>& param) {
      std::string name = param.param.fixture_dir;
      return name;
    });

}  // namespace
}  // namespace raw::e2e
