// `raw-acp --listen`: ACP over a local WebSocket, driven by the SDK's
// WebSocket client against a real rawd; upgrades without the token, with a
// wrong token, or from a foreign Origin or Host are refused.
#include "tests/e2e/acp/acp_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;

TEST_F(AcpTest, WebSocketServesASessionAndRefusesStrangers) {
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("Hello "),
                              chat::TextChunk("socket."), chat::FinishChunk("stop"),
                              chat::UsageChunk(10, 2), chat::Done()}));
  Json r = Drive("ws_driver.mjs", "");
  EXPECT_EQ(r["refused"]["noToken"], 401);
  EXPECT_EQ(r["refused"]["wrongToken"], 401);
  EXPECT_EQ(r["refused"]["foreignOrigin"], 403);
  EXPECT_NE(r["refused"]["foreignHost"], 101);
  EXPECT_EQ(r["protocolVersion"], 1);
  EXPECT_EQ(r["text"], "Hello socket.");
  EXPECT_EQ(r["stopReason"], "end_turn");
  // Nothing but protocol on stdout: in this mode, nothing at all.
  EXPECT_EQ(r["stdout"], "");
  EXPECT_EQ(r["exit"]["code"], 0);
  ASSERT_EQ(fake_.requests().size(), 1u);
}

}  // namespace
}  // namespace raw::e2e
