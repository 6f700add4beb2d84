// The terminal client end to end on the model context: /compact with its
// progress and outcome, and /clear.
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

// A long answer, so that a short summary is clearly smaller than it.
std::string LongAnswer(int turn) {
  std::string text = absl::StrCat("Answer ", turn, ":");
  for (int i = 0; i < 60; ++i) absl::StrAppend(&text, " detail-", turn, "-", i);
  return text;
}

TEST_F(TuiE2eTest, CompactShowsItsProgressAndOutcomeAndClearEmptiesTheContext) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  for (int i = 1; i <= 3; ++i) {
    fake_.Enqueue(chat::TextAnswer(LongAnswer(i)));
    RunTurn(session, absl::StrCat("task ", i));
  }
  StartRaw("a", {"resume", session});
  ASSERT_TRUE(tmux_.WaitForText("a", "detail-3-59")) << tmux_.Capture("a");

  // The summary request is held until the test has seen the progress.
  raw::testing::ScriptedResponse summary = chat::Stream(
      {chat::RoleChunk(), chat::TextChunk("SUMMARY: three tasks "), chat::TextChunk("were set."),
       chat::FinishChunk("stop"), chat::UsageChunk(900, 12), chat::Done()});
  summary.gate_before_chunk = 2;
  fake_.Enqueue(summary);
  Send("a", "/compact");
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("── Compacting the context (~") != std::string::npos &&
           s.find("Compacting the context…  Esc to interrupt") != std::string::npos &&
           s.find("· compacting") != std::string::npos;
  });
  EXPECT_NE(screen.find("── Compacting the context (~"), std::string::npos) << screen;
  EXPECT_NE(screen.find("Compacting the context…  Esc to interrupt"), std::string::npos) << screen;
  EXPECT_NE(screen.find("· compacting"), std::string::npos) << screen;
  fake_.ReleaseGate();
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Context compacted: ~") != std::string::npos &&
           s.find("detail-3-59") != std::string::npos && s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("Context compacted: ~"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("── Compacting the context"), std::string::npos) << screen;
  // The display history stays.
  EXPECT_NE(screen.find("detail-3-59"), std::string::npos) << screen;

  Send("a", "/clear");
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Context cleared: ~") != std::string::npos;
  });
  EXPECT_NE(screen.find("Context cleared: ~"), std::string::npos) << screen;
}

}  // namespace
}  // namespace raw::tui::testing
