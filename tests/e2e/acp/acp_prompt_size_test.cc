// A prompt whose message is within raw-acp's limit but whose assembled
// text is larger than rawd takes in one request: raw-acp refuses it itself
// and sends rawd nothing.
#include "gmock/gmock.h"
#include "tests/e2e/acp/acp_fixture.h"
#include "tests/e2e/acp/piped_bridge.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

Json PromptRequest(int id, const std::string& session_id, Json blocks) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "session/prompt"},
          {"params", {{"sessionId", session_id}, {"prompt", std::move(blocks)}}}};
}

TEST_F(AcpTest, APromptAssembledPastRawdsLimitIsRefusedBeforeRawd) {
  PipedBridge bridge(daemon_->env());
  ASSERT_TRUE(bridge.started());
  const std::string id = bridge.OpenSession(daemon_->workdir());
  ASSERT_FALSE(id.empty());

  // 6 MiB of backticks in an embedded resource: the message is well under
  // raw-acp's 16 MiB, the fenced contents three times its size.
  Json resource = {
      {"type", "resource"},
      {"resource", {{"uri", "file:///w/ticks.txt"}, {"text", std::string(6u << 20, '`')}}}};
  bridge.Send(PromptRequest(3, id, Json::array({resource})));
  Json refused = bridge.ResponseTo(3);
  ASSERT_TRUE(refused.contains("error")) << refused.dump().substr(0, 2000);
  EXPECT_EQ(refused["error"]["code"], -32602);
  const std::string message = refused["error"].value("message", "");
  EXPECT_THAT(message, HasSubstr("bytes once assembled"));
  EXPECT_THAT(message, HasSubstr("16777216"));

  // rawd heard nothing of it: the session's next prompt is its first turn.
  fake_.Enqueue(chat::TextAnswer("fine"));
  bridge.Send(PromptRequest(4, id, Json::array({{{"type", "text"}, {"text", "hi"}}})));
  Json answered = bridge.ResponseTo(4);
  EXPECT_EQ(answered["result"]["stopReason"], "end_turn") << answered.dump();
  EXPECT_EQ(fake_.requests().size(), 1u);
  int turns = 0;
  for (const raw::v1::Event& e : History(id)) turns += e.has_turn_started() ? 1 : 0;
  EXPECT_EQ(turns, 1);
}

}  // namespace
}  // namespace raw::e2e
