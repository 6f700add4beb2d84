// raw-acp on the session API: config options (agent and model through
// ConfigureSession) and MCP servers passed in session/new becoming the
// session's own servers in rawd, used by the model.
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/acp/acp_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

constexpr char kDriver[] = "stdio_driver.mjs";

const Json* Option(const Json& options, const std::string& id) {
  for (const Json& o : options) {
    if (o["id"] == id) return &o;
  }
  return nullptr;
}

TEST_F(AcpTest, ConfigOptionsChangeTheAgentAndTheModel) {
  fake_.Enqueue(chat::TextAnswer("hi"));
  Json r = Drive(kDriver, "config",
                 {{"MODEL", "other"}, {"AGENT", "asker"}, {"FIRST_AGENT", "coder"}});
  const Json* agent = Option(r["initial"], "agent");
  const Json* model = Option(r["initial"], "model");
  ASSERT_TRUE(agent && model) << r["initial"].dump();
  EXPECT_EQ((*agent)["currentValue"], "coder");
  EXPECT_EQ((*agent)["type"], "select");
  EXPECT_EQ((*model)["currentValue"], "fake");
  EXPECT_EQ((*model)["category"], "model");
  EXPECT_EQ((*model)["options"].size(), 2u);
  EXPECT_EQ((*Option(r["agent"], "agent"))["currentValue"], "asker");
  // coder allows all, asker asks: the agent change changed the mode too.
  EXPECT_EQ((*Option(r["initial"], "mode"))["currentValue"], "allow_all");
  EXPECT_EQ((*Option(r["agent"], "mode"))["currentValue"], "default");
  EXPECT_THAT(r["modeUpdates"], ::testing::ElementsAre("default"));
  EXPECT_EQ((*Option(r["model"], "model"))["currentValue"], "other");
  EXPECT_EQ(r["bad"]["code"], -32602);
  EXPECT_EQ(r["stopReason"], "end_turn");
  // The agent cannot change once the session has a conversation.
  EXPECT_TRUE(r["late"].is_object());
  EXPECT_FALSE(r["late"]["message"].get<std::string>().empty());
  ASSERT_EQ(fake_.requests().size(), 1u);
  absl::StatusOr<Json> body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["model"], "gpt-other");
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("You ask first."));
  EXPECT_EQ(GetSession(r["sessionId"]).agent(), "asker");
}

std::string Everything() {
  return absl::StrCat(RAW_SOURCE_DIR,
                      "/tests/mcp-servers/node_modules/@modelcontextprotocol/"
                      "server-everything/dist/index.js");
}

// The completed tool_call_update in `updates`, or null.
const Json* CompletedCall(const Json& updates) {
  const Json* done = nullptr;
  for (const Json& u : updates) {
    if (u.value("sessionUpdate", "") == "tool_call_update" &&
        u.value("status", "") == "completed") {
      done = &u;
    }
  }
  return done;
}

TEST_F(AcpTest, McpServerFromSessionNewIsUsedByTheModel) {
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"m1", "mcp__everything__echo", R"({"message":"hi from the editor"})"}}));
  fake_.Enqueue(chat::TextAnswer("echoed"));
  Json r = Drive(kDriver, "mcp", {{"EVERYTHING", Everything()}}, {"--agent", "editor"});
  EXPECT_EQ(r["stopReason"], "end_turn");
  const Json* done = nullptr;
  for (const Json& u : r["updates"]) {
    if (u["sessionUpdate"] == "tool_call") {
      EXPECT_EQ(u["kind"], "other");
    }
    if (u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed") done = &u;
  }
  ASSERT_NE(done, nullptr) << r["updates"].dump();
  EXPECT_THAT((*done)["content"][0]["content"]["text"].get<std::string>(),
              HasSubstr("hi from the editor"));
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("mcp__everything__echo"));
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("hi from the editor"));
}

// An editor's label for its server that is no Raw server name ("GitHub
// MCP", "context7.server") does not fail session/new: the server gets a
// name rawd takes, and its tools are mcp__<that name>__<tool>.
TEST_F(AcpTest, McpServerLabelsBecomeValidServerNames) {
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"m1", "mcp__Every-thing-server__echo", R"({"message":"hi from the label"})"}}));
  fake_.Enqueue(chat::TextAnswer("echoed"));
  Json r =
      Drive(kDriver, "mcp", {{"EVERYTHING", Everything()}, {"SERVER_NAME", "Every thing.server"}},
            {"--agent", "editor"});
  EXPECT_EQ(r["stopReason"], "end_turn");
  const Json* done = CompletedCall(r["updates"]);
  ASSERT_NE(done, nullptr) << r["updates"].dump();
  EXPECT_THAT((*done)["content"][0]["content"]["text"].get<std::string>(),
              HasSubstr("hi from the label"));
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("mcp__Every-thing-server__echo"));
}

// session/load with the editor's MCP servers while another client (a
// second raw-acp) writes: the session opens (following) instead of
// failing; the prompt is what fails, naming the holder; once the holder
// lets go, the lease comes to this bridge, the servers become the
// session's own and the next prompt's model uses them.
TEST_F(AcpTest, LoadWithMcpServersWhileAnotherClientWritesOpensAndAppliesThemLater) {
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"m1", "mcp__Every-thing__echo", R"({"message":"hi after the handover"})"}}));
  fake_.Enqueue(chat::TextAnswer("echoed"));
  Json r = Drive("two_clients.mjs", "", {{"EVERYTHING", Everything()}}, {"--agent", "editor"});
  ASSERT_TRUE(r["load"].contains("result")) << r["load"].dump();
  EXPECT_EQ(r["refused"]["code"], -32603) << r["refused"].dump();
  const std::string holder = absl::StrCat("(pid ", r["holderPid"].get<int>(), ")");
  EXPECT_THAT(r["refused"]["message"].get<std::string>(), HasSubstr(holder));
  EXPECT_THAT(r["refused"]["data"]["holder"].get<std::string>(), HasSubstr(holder));
  EXPECT_EQ(r["stopReason"], "end_turn");
  const Json* done = CompletedCall(r["updates"]);
  ASSERT_NE(done, nullptr) << r["updates"].dump();
  EXPECT_THAT((*done)["content"][0]["content"]["text"].get<std::string>(),
              HasSubstr("hi after the handover"));
}

// The lease holder goes away while this bridge follows the session: rawd
// tells followers nothing, so the bridge's first prompt asks rawd for the
// lease before it answers, and runs (the lease is free) instead of failing
// with the name of a client that is gone.
TEST_F(AcpTest, APromptAfterTheHolderLeftRunsInsteadOfNamingIt) {
  fake_.Enqueue(chat::TextAnswer("yours now"));
  Json r = Drive("two_clients.mjs", "holder_left");
  EXPECT_EQ(r["holderExit"]["code"], 0) << r.dump();
  EXPECT_EQ(r["response"]["stopReason"], "end_turn") << r["response"].dump();
  auto history = [&] {
    raw::v1::GetHistoryRequest request;
    request.set_session_id(r["sessionId"].get<std::string>());
    request.set_limit(100);
    raw::v1::GetHistoryResponse response;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().GetHistory(&ctx, request, &response).ok());
    return response;
  }();
  int ended = 0;
  for (const auto& e : history.events()) ended += e.has_turn_ended() ? 1 : 0;
  EXPECT_EQ(ended, 1);
}

// Another client changes the session's agent (and with it the approval mode
// its turns run under) while this bridge follows; no event says so. Granted
// the lease for a prompt, the bridge tells its client the agent and mode as
// they are before the prompt's turn, so that an editor never shows
// "allow_all" for a session that asks, or the other way round.
TEST_F(AcpTest, ABridgeGrantedTheLeaseTellsItsClientTheSessionAsItIsNow) {
  fake_.Enqueue(chat::TextAnswer("as it is"));
  Json r = Drive("two_clients.mjs", "setup_changed_elsewhere");
  EXPECT_EQ(r["loadModes"]["currentModeId"], "allow_all") << r.dump();
  EXPECT_EQ(r["stopReason"], "end_turn") << r.dump();
  std::string mode;
  const Json* agent_option = nullptr;
  size_t told_at = 0, answer_at = 0;
  for (size_t i = 0; i < r["updates"].size(); ++i) {
    const Json& u = r["updates"][i];
    if (u["sessionUpdate"] == "agent_message_chunk" && answer_at == 0) answer_at = i;
    if (u["sessionUpdate"] == "current_mode_update") mode = u["currentModeId"];
    if (u["sessionUpdate"] != "config_option_update") continue;
    told_at = i + 1;
    for (const Json& option : u["configOptions"]) {
      if (option["id"] == "agent") agent_option = &option;
    }
  }
  EXPECT_EQ(mode, "default") << r["updates"].dump();
  ASSERT_NE(agent_option, nullptr) << r["updates"].dump();
  EXPECT_EQ((*agent_option)["currentValue"], "asker") << agent_option->dump();
  EXPECT_LT(told_at, answer_at + 1) << r["updates"].dump();
}

// Another client asks the holder for the session, and the idle holder's
// 10 s countdown starts; the holder's editor prompts at once. The prompt
// is the user's activity: the lease is kept (the handover is declined,
// which the driver waits for in both bridges' logs) and the turn runs to
// its end, instead of being cut off by a handover (and answered
// `cancelled` that nobody asked for). That a turn started during a
// countdown defers the handover to its end is HandoverGateTest's.
TEST_F(AcpTest, APromptDuringAHandoverCountdownKeepsTheLeaseAndRunsToItsEnd) {
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("still yours"),
                              chat::FinishChunk("stop"), chat::UsageChunk(10, 2), chat::Done()}));
  Json r = Drive("two_clients.mjs", "prompt_during_countdown");
  EXPECT_EQ(r["refused"]["error"]["code"], -32603) << r.dump();
  EXPECT_EQ(r["response"]["stopReason"], "end_turn") << r.dump();
  raw::v1::GetHistoryRequest request;
  request.set_session_id(r["sessionId"].get<std::string>());
  request.set_limit(100);
  raw::v1::GetHistoryResponse response;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().GetHistory(&ctx, request, &response).ok());
  for (const auto& e : response.events()) {
    if (e.has_turn_ended()) {
      EXPECT_EQ(e.turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
    }
  }
}

}  // namespace
}  // namespace raw::e2e
