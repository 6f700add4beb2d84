// The turn rules end to end: real rawd, real gRPC on a Unix socket, real
// libcurl against the fake provider, real SQLite.
#include <filesystem>
#include <fstream>

#include "common/json.h"
#include "gmock/gmock.h"
#include "daemon/raven/prompt.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// rawd loads libcurl, and the libraries it loads, when it first needs them
// (daemon/curl_on_demand.cc): not at start nor to list sessions; from the
// first session a client creates, opens or prompts on (SessionManager::
// PrepareHttp), and the provider request goes out through it as through a
// linked libcurl.
TEST_F(E2eTest, LibcurlIsLoadedOnlyWhenTheFirstRequestIsSent) {
  const std::string maps = "/proc/" + std::to_string(daemon_->pid()) + "/maps";
  auto libcurl_mapped = [&] { return ReadText(maps).find("/libcurl") != std::string::npos; };
  ASSERT_FALSE(ReadText(maps).empty());
  EXPECT_FALSE(libcurl_mapped()) << "at start";
  {
    grpc::ClientContext ctx;
    raw::v1::ListSessionsResponse listed;
    ASSERT_TRUE(stub().ListSessions(&ctx, raw::v1::ListSessionsRequest(), &listed).ok());
  }
  EXPECT_FALSE(libcurl_mapped()) << "after listing sessions";
  std::string session = daemon_->CreateSession();

  fake_.Enqueue(chat::TextAnswer("Hello."));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "hi");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(fake_.requests().size(), 1u);
  EXPECT_TRUE(libcurl_mapped()) << "after a provider request";
}

TEST_F(E2eTest, MultiStepToolTurn) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"call_w", "write_file", R"({"path":"notes/a.txt","content":"alpha\n"})"}}));
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_r", "read_file", R"({"path":"notes/a.txt"})"},
                                       {"call_b", "bash", R"({"command":"cat notes/a.txt | wc -l"})"}}));
  fake_.Enqueue(chat::TextAnswer("The file has one line."));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write and read a file");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  EXPECT_EQ(end->turn_ended().steps(), 3);
  EXPECT_EQ(ReadText(daemon_->workdir() + "/notes/a.txt"), "alpha\n");

  std::vector<raw::v1::ToolResult> results;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_tool_result()) results.push_back(e.tool_result());
  }
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(results[0].tool(), "builtin/write_file");
  EXPECT_THAT(results[1].content(), HasSubstr("alpha"));
  EXPECT_THAT(results[2].content(), HasSubstr("1"));

  // Results were appended before the next request, in call order.
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 3u);
  auto body = reqs[2].BodyJson();
  ASSERT_TRUE(body.ok());
  const auto& msgs = (*body)["messages"];
  ASSERT_GE(msgs.size(), 6u);
  EXPECT_EQ(msgs[msgs.size() - 2]["tool_call_id"], "call_r");
  EXPECT_EQ(msgs[msgs.size() - 1]["tool_call_id"], "call_b");
  EXPECT_EQ(reqs[0].Header("authorization"), "Bearer sk-test-key");
}

TEST_F(E2eTest, ModelReceivesOnlySystemPromptSelectedToolsAndConversation) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("hi"));
  EventStream stream(stub(), session);
  ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, "hello")).has_value());
  auto body = fake_.single_request().BodyJson();
  ASSERT_TRUE(body.ok());
  const auto& msgs = (*body)["messages"];
  ASSERT_EQ(msgs.size(), 2u);
  // The agent's prompt, then the section of the one selected tool that has
  // one (builtin/raven_task).
  EXPECT_EQ(msgs[0]["content"], "You are a test agent." + raven::PromptSection());
  EXPECT_EQ(msgs[1]["role"], "user");
  EXPECT_EQ(msgs[1]["content"], "hello");
  std::vector<std::string> tools;
  for (const auto& t : (*body)["tools"]) tools.push_back(t["function"]["name"]);
  // Every built-in tool but load_skill, which needs skills.
  EXPECT_THAT(tools, ::testing::UnorderedElementsAre("bash", "edit_file", "glob", "grep", "list_dir",
                                                     "raven_task", "read_file", "web_fetch",
                                                     "write_file"));
  // Nothing host-side leaks into the request.
  std::string text = fake_.single_request().body;
  EXPECT_THAT(text, ::testing::Not(HasSubstr("RAW_TEST_KEY")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr(daemon_->state_dir())));
}

TEST_F(E2eTest, LastPermittedRequestAskingForToolEndsWithMaxStepsBeforeTheToolRuns) {
  daemon_.reset();
  StartDaemon(/*max_steps=*/2);
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo one > one.txt"})"}}));
  fake_.Enqueue(chat::ToolCallsAnswer({{"c2", "bash", R"({"command":"echo two > two.txt"})"}}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "loop");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_MAX_STEPS);
  EXPECT_TRUE(std::filesystem::exists(daemon_->workdir() + "/one.txt"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/two.txt"));
  EXPECT_EQ(fake_.requests().size(), 2u);
  // The skipped call still has a result, so the transcript stays valid.
  int skipped = 0;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_tool_result() && e.tool_result().status() == raw::v1::TOOL_RESULT_STATUS_SKIPPED) {
      ++skipped;
    }
  }
  EXPECT_EQ(skipped, 1);
}

TEST_F(E2eTest, UnknownToolAndInvalidJsonArgumentsGetErrorResults) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "launch_rocket", R"({"target":"moon"})"},
                                       {"c2", "write_file", R"({"path": "x.txt", "content": )"}}));
  fake_.Enqueue(chat::TextAnswer("sorry"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "go");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  std::vector<raw::v1::ToolResult> results;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_tool_result()) results.push_back(e.tool_result());
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("unknown tool \"launch_rocket\""));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[1].content(), HasSubstr("not valid JSON"));
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/x.txt"));
  // The model saw both errors as tool messages.
  auto body = fake_.requests()[1].BodyJson();
  ASSERT_TRUE(body.ok());
  std::string dumped = body->dump();
  EXPECT_THAT(dumped, HasSubstr("unknown tool"));
}

TEST_F(E2eTest, EveryRequestStartsWithThePreviousRequestByteForByte) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo hi"})"}}));
  fake_.Enqueue(chat::TextAnswer("first done"));
  fake_.Enqueue(chat::TextAnswer("second done"));
  fake_.Enqueue(chat::ToolCallsAnswer({{"c2", "read_file", R"({"path":"nope.txt"})"}}));
  fake_.Enqueue(chat::TextAnswer("third done"));
  EventStream stream(stub(), session);
  for (const char* text : {"first", "second", "third"}) {
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, text)).has_value());
  }
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 5u);
  for (size_t i = 1; i < reqs.size(); ++i) {
    const std::string& prev = reqs[i - 1].body;
    const std::string& cur = reqs[i].body;
    size_t open = prev.find("\"messages\":[");
    ASSERT_NE(open, std::string::npos);
    // End of the previous messages array: the last message's closing brace.
    auto prev_json = ParseOrderedJson(prev);
    ASSERT_TRUE(prev_json.ok());
    std::string last = (*prev_json)["messages"].back().dump();
    size_t end = prev.find(last, open);
    ASSERT_NE(end, std::string::npos) << "messages are not serialized compactly";
    end += last.size();
    EXPECT_EQ(cur.substr(0, end), prev.substr(0, end)) << "request " << i;
  }
}

TEST_F(E2eTest, SecondStartTurnWhileOneRunsIsRefused) {
  std::string session = daemon_->CreateSession();
  auto slow = chat::TextAnswer("slow answer");
  slow.gate_before_chunk = 1;
  fake_.Enqueue(slow);
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "one");
  ASSERT_TRUE(fake_.WaitForGate());
  grpc::Status second;
  StartTurn(stub(), session, "two", &second);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(second.error_message(), HasSubstr("already has a running turn"));
  fake_.ReleaseGate();
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
}

TEST_F(E2eTest, SubscribeAfterSeqReplaysStoredThenContinuesLive) {
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("one"));
  uint64_t mid = 0;
  {
    EventStream first(stub(), session);
    std::string turn = StartTurn(stub(), session, "first");
    ASSERT_TRUE(first.WaitForTurnEnd(turn).has_value());
    auto evs = first.events();
    for (size_t i = 1; i < evs.size(); ++i) EXPECT_GT(evs[i].seq(), evs[i - 1].seq());
    mid = evs[evs.size() / 2].seq();
  }
  EventStream replay(stub(), session, mid);
  fake_.Enqueue(chat::TextAnswer("two"));
  std::string turn2 = StartTurn(stub(), session, "second");
  ASSERT_TRUE(replay.WaitForTurnEnd(turn2).has_value());
  auto evs = replay.events();
  ASSERT_FALSE(evs.empty());
  EXPECT_GT(evs.front().seq(), mid);
  for (size_t i = 1; i < evs.size(); ++i) EXPECT_GT(evs[i].seq(), evs[i - 1].seq());
  // Every stored event after `mid` arrives exactly once.
  grpc::ClientContext ctx;
  raw::v1::GetHistoryRequest req;
  req.set_session_id(session);
  req.set_limit(1000);
  raw::v1::GetHistoryResponse resp;
  ASSERT_TRUE(stub().GetHistory(&ctx, req, &resp).ok());
  for (const auto& stored : resp.events()) {
    if (stored.seq() <= mid) continue;
    int n = 0;
    for (const auto& e : evs) n += e.seq() == stored.seq() ? 1 : 0;
    EXPECT_EQ(n, 1) << "seq " << stored.seq();
  }
}

}  // namespace
}  // namespace raw::e2e

namespace raw::e2e {
namespace {

TEST(E2eToolSelectionTest, OnlyTheAgentsSelectedToolsAreExposedAndRunnable) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  std::string config = TestConfig(fake.base_url());
  config = absl::StrReplaceAll(config, {{R"(["builtin/*"])", R"(["builtin/read_file"])"}});
  TestDaemon daemon(config);
  ASSERT_TRUE(daemon.Start().ok()) << daemon.ReadStderr();
  std::string session = daemon.CreateSession();
  fake.Enqueue(testing::chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"touch should-not-exist"})"}}));
  fake.Enqueue(testing::chat::TextAnswer("ok"));
  EventStream stream(daemon.stub(), session);
  ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(daemon.stub(), session, "try bash")).has_value());
  auto body = fake.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  ASSERT_EQ((*body)["tools"].size(), 1u);
  EXPECT_EQ((*body)["tools"][0]["function"]["name"], "read_file");
  EXPECT_FALSE(std::filesystem::exists(daemon.workdir() + "/should-not-exist"));
  bool unknown = false;
  for (const auto& e : stream.events()) {
    if (e.has_tool_result()) {
      unknown = e.tool_result().content().find("unknown tool \"bash\"") != std::string::npos;
    }
  }
  EXPECT_TRUE(unknown);
}

}  // namespace
}  // namespace raw::e2e

namespace raw::e2e {
namespace {

TEST_F(E2eTest, OpenAiRequestsCarryAStablePromptCacheKeyPerSession) {
  std::string first = daemon_->CreateSession();
  std::string second = daemon_->CreateSession();
  fake_.Enqueue(testing::chat::TextAnswer("a"));
  fake_.Enqueue(testing::chat::TextAnswer("b"));
  fake_.Enqueue(testing::chat::TextAnswer("c"));
  {
    EventStream stream(stub(), first);
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), first, "one")).has_value());
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), first, "two")).has_value());
  }
  EventStream stream(stub(), second);
  ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), second, "three")).has_value());
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 3u);
  std::vector<std::string> keys;
  for (const auto& r : reqs) {
    auto body = r.BodyJson();
    ASSERT_TRUE(body.ok());
    ASSERT_TRUE(body->contains("prompt_cache_key")) << r.body;
    keys.push_back((*body)["prompt_cache_key"]);
  }
  EXPECT_EQ(keys[0], keys[1]) << "stable within a session";
  EXPECT_NE(keys[0], keys[2]) << "per session";
}

}  // namespace
}  // namespace raw::e2e
