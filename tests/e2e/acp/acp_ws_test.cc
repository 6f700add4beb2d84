// `raw-acp --listen`: ACP over a local WebSocket, driven by the SDK's
// WebSocket client against a real rawd; upgrades without the token, with a
// wrong token, or from a foreign Origin or Host are refused.
#include "gmock/gmock.h"
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

// SIGINT to `raw-acp --listen` while a prompt streams: the socket's turn is
// interrupted (recorded cancelled, its prompt answered) and the lease
// released before the process exits 0, as when the socket closes.
TEST_F(AcpTest, WebSocketListenerStoppedBySignalInterruptsItsTurns) {
  testing::ScriptedResponse parked =
      chat::Stream({chat::RoleChunk(), chat::TextChunk("partial "), chat::TextChunk("rest"),
                    chat::FinishChunk("stop"), chat::UsageChunk(10, 2), chat::Done()});
  parked.gate_before_chunk = 2;
  fake_.Enqueue(parked);
  Json r = Drive("ws_driver.mjs", "signal");
  EXPECT_EQ(r["response"]["stopReason"], "cancelled") << r.dump();
  EXPECT_EQ(r["exit"]["code"], 0) << r.dump();
  std::string id = r["sessionId"];
  std::optional<raw::v1::TurnEnded> end;
  for (const auto& e : History(id)) {
    if (e.has_turn_ended()) end = e.turn_ended();
  }
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->reason(), raw::v1::TURN_END_REASON_CANCELLED);
  EXPECT_EQ(GetSession(id).writer(), "");
}

// The WebSocket's message cap is the stdio one (16 MiB by default, what
// rawd takes in one request): a 12 MiB frame is answered; a longer one closes the socket unanswered (with 1009,
// which the client may not get to read: the server stops reading the frame
// and closes while the client still sends it, and the connection reset
// then reads as 1006).
TEST_F(AcpTest, WebSocketMessageCapMatchesStdio) {
  Json r = Drive("ws_driver.mjs", "sizes");
  EXPECT_EQ(r["under"]["answer"]["result"]["protocolVersion"], 1) << r["under"].dump();
  EXPECT_FALSE(r["over"].contains("answer")) << r["over"].dump();
  EXPECT_THAT(r["over"]["closed"].get<int>(), ::testing::AnyOf(1009, 1006)) << r["over"].dump();
  EXPECT_EQ(r["exit"]["code"], 0);
}

}  // namespace
}  // namespace raw::e2e
