// The terminal client end to end across sessions and clients: resuming,
// paging the history back, resizing, following a session another client
// holds, and reconnecting after the daemon died.
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

// The rows of `screen` from the first that contains `start`, stripped and
// joined with spaces until they make `size` characters ("" when none).
std::string RowsJoinedFrom(const std::string& screen, const std::string& start, size_t size) {
  std::vector<std::string> lines = absl::StrSplit(screen, '\n');
  std::string joined;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(start) == std::string::npos) continue;
    for (size_t j = i; j < lines.size() && joined.size() < size; ++j) {
      std::string part(absl::StripAsciiWhitespace(lines[j]));
      joined += joined.empty() ? part : " " + part;
    }
    break;
  }
  return joined;
}

TEST_F(TuiE2eTest, ResumePicksASessionAndShowsItsHistory) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("The answer is **42**."));
  RunTurn(session, "what is the answer");
  StartRaw("a", {"resume"}, 100, 30, "Resume a session");
  ASSERT_TRUE(tmux_.WaitForText("a", "what is the answer")) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"Enter"});
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("› what is the answer") != std::string::npos &&
           s.find("The answer is 42.") != std::string::npos &&
           s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("› what is the answer"), std::string::npos) << screen;
  EXPECT_NE(screen.find("The answer is 42."), std::string::npos) << screen;
  // Up recalls the session's earlier prompt.
  tmux_.SendKeys("a", {"Up"});
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return Count(s, "› what is the answer") == 2;  // the transcript and the prompt
  });
  EXPECT_EQ(Count(screen, "› what is the answer"), 2u) << screen;
}

TEST_F(TuiE2eTest, ScrollsBackThroughPagedHistoryAndReflowsOnResize) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  // More stored events than one history page (200).
  constexpr int kTurns = 45;
  // The last answer fits one row of 100 columns, not of 40.
  const std::string last = "answer number 44: the quick brown fox jumps over the lazy dog and runs away";
  for (int i = 0; i < kTurns; ++i) {
    fake_.Enqueue(chat::TextAnswer(i == kTurns - 1 ? last : absl::StrCat("answer number ", i)));
    RunTurn(session, absl::StrCat("question number ", i));
  }
  StartRaw("a", {"resume", session});
  ASSERT_TRUE(tmux_.WaitForText("a", last)) << tmux_.Capture("a");
  EXPECT_EQ(tmux_.Capture("a").find("question number 0\n"), std::string::npos);
  // The wheel scrolls up.
  for (int i = 0; i < 3; ++i) tmux_.SendText("a", "\x1b[<64;10;10M");
  ASSERT_TRUE(tmux_.WaitForText("a", "more lines below")) << tmux_.Capture("a");
  // Ctrl-Home goes to the top; older pages load on the way.
  bool found = false;
  for (int i = 0; i < 10 && !found; ++i) {
    tmux_.SendKeys("a", {"C-Home"});
    found = tmux_.WaitForText("a", "› question number 0\n", absl::Seconds(2));
  }
  EXPECT_TRUE(found) << tmux_.Capture("a");
  // Resizing reflows, and Ctrl-End follows the end again.
  tmux_.Resize("a", 40, 16);
  tmux_.SendKeys("a", {"C-End"});
  // The whole answer wrapped again, not the first capture with its first
  // row: tmux may show a frame it has only partly read.
  std::string screen = tmux_.WaitFor("a", [&last](const std::string& s) {
    return s.find("answer number 44") != std::string::npos &&
           s.find("more lines below") == std::string::npos &&
           RowsJoinedFrom(s, "answer number 44:", last.size()) == last;
  });
  EXPECT_NE(screen.find("answer number 44"), std::string::npos) << screen;
  // The answer was wrapped again for 40 columns, at spaces, losing nothing.
  EXPECT_EQ(screen.find(last), std::string::npos) << screen;
  std::vector<std::string> lines = absl::StrSplit(screen, '\n');
  std::string joined;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("answer number 44:") == std::string::npos) continue;
    for (size_t j = i; j < lines.size() && joined.size() < last.size(); ++j) {
      std::string part(absl::StripAsciiWhitespace(lines[j]));
      EXPECT_LE(lines[j].size(), 40u) << lines[j];
      joined += joined.empty() ? part : " " + part;
    }
    break;
  }
  EXPECT_EQ(joined, last) << screen;
}

TEST_F(TuiE2eTest, ReconnectsAndResubscribesAfterTheDaemonDies) {
  StartDaemon();
  fake_.Enqueue(chat::TextAnswer("Before the crash."));
  StartRaw("a", {"--cwd", daemon_->workdir()});
  Send("a", "first");
  ASSERT_TRUE(tmux_.WaitForText("a", "Before the crash.")) << tmux_.Capture("a");
  daemon_->Stop(SIGKILL);
  // raw says so, starts a new daemon (autostart) and resubscribes.
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Lost the connection to the daemon") != std::string::npos &&
           s.find("Reconnected to the daemon") != std::string::npos &&
           s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("Lost the connection to the daemon"), std::string::npos) << screen;
  EXPECT_NE(screen.find("Reconnected to the daemon"), std::string::npos) << screen;
  fake_.Enqueue(chat::TextAnswer("After the restart."));
  Send("a", "second");
  EXPECT_TRUE(tmux_.WaitForText("a", "After the restart.")) << tmux_.Capture("a");
  // Leave, then stop the daemon raw started.
  tmux_.SendKeys("a", {"C-d"});
  EXPECT_EQ(tmux_.WaitForExit("a"), 0) << tmux_.Capture("a");
  StopAutostartedDaemon();
}

}  // namespace
}  // namespace raw::tui::testing
