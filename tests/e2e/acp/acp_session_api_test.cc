// raw-acp on the session API: config options (agent and model through
// ConfigureSession) and MCP servers passed in session/new becoming the
// session's own servers in rawd, used by the model.
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

TEST_F(AcpTest, McpServerFromSessionNewIsUsedByTheModel) {
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"m1", "mcp__everything__echo", R"({"message":"hi from the editor"})"}}));
  fake_.Enqueue(chat::TextAnswer("echoed"));
  Json r = Drive(kDriver, "mcp",
                 {{"EVERYTHING", absl::StrCat(RAW_SOURCE_DIR,
                                              "/tests/mcp-servers/node_modules/@modelcontextprotocol/"
                                              "server-everything/dist/index.js")}},
                 {"--agent", "editor"});
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

}  // namespace
}  // namespace raw::e2e
