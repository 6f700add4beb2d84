// The terminal client end to end, as a terminal sees it: colours (NO_COLOR,
// 256 and 8 colours), suspending with Ctrl-Z and coming back with `fg`, the
// terminal restored after a crash, and large pastes.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

// The parameters of every SGR sequence (ESC [ ... m) in `styled`; an empty
// parameter counts as 0.
std::vector<int> SgrParameters(const std::string& styled) {
  std::vector<int> params;
  for (size_t at = styled.find("\x1b["); at != std::string::npos; at = styled.find("\x1b[", at + 1)) {
    size_t end = styled.find_first_not_of("0123456789;:", at + 2);
    if (end == std::string::npos || styled[end] != 'm') continue;
    for (absl::string_view p : absl::StrSplit(styled.substr(at + 2, end - at - 2), absl::ByAnyChar(";:"))) {
      int value = 0;
      if (!p.empty() && !absl::SimpleAtoi(p, &value)) continue;
      params.push_back(value);
    }
  }
  return params;
}

bool Has(const std::vector<int>& params, int value) {
  return std::find(params.begin(), params.end(), value) != params.end();
}

// Foreground or background colours: 30-48 (38 and 48 extended), 90-107.
// 39 and 49 select the terminal's default colours (capture-pane writes them
// after every reset), so they are no colour.
std::vector<int> ColourParameters(const std::vector<int>& params) {
  std::vector<int> colours;
  for (size_t i = 0; i < params.size(); ++i) {
    int p = params[i];
    if (p == 39 || p == 49) continue;
    if ((p >= 30 && p <= 48) || (p >= 90 && p <= 107)) colours.push_back(p);
    if (p == 38 || p == 48) {
      // 38;5;N or 38;2;R;G;B: skip the arguments.
      if (i + 1 < params.size()) i += params[i + 1] == 5 ? 2 : params[i + 1] == 2 ? 4 : 0;
    }
  }
  return colours;
}

// The first child process of `pid` (0 when none).
int FirstChild(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/task/", pid, "/children"));
  int child = 0;
  in >> child;
  return child;
}

// Whether `screen` shows the whole resumed session of the test below: every
// part of the answer and the footer, not a frame tmux has only partly read.
bool ShowsTheWholeStyledAnswer(const std::string& screen) {
  for (const char* text : {"✓ bash  echo hi", "Result", "Ran echo hi, see the docs", "▎ hi",
                           "│ 1 │ 2 │", "agent coder, model fake", "· idle"}) {
    if (screen.find(text) == std::string::npos) return false;
  }
  return true;
}

TEST_F(TuiE2eTest, NoColorDropsEveryColourAndDepthFollowsTheTerminal) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo hi"})"}}));
  fake_.Enqueue(chat::TextAnswer(
      "# Result\n\nRan `echo hi`, see [the docs](https://example.com/docs).\n\n"
      "```\nhi\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"));
  RunTurn(session, "say hi");

  // NO_COLOR=1: attributes only (bold, underline, dim, reverse).
  StartRaw("a", {"resume", session}, 100, 30, "· idle", {{"NO_COLOR", "1"}});
  ASSERT_TRUE(ShowsTheWholeStyledAnswer(tmux_.WaitFor("a", ShowsTheWholeStyledAnswer)))
      << tmux_.Capture("a");
  std::string styled = tmux_.Capture("a", /*escapes=*/true);
  std::vector<int> params = SgrParameters(styled);
  EXPECT_TRUE(ColourParameters(params).empty())
      << "colour parameter " << ColourParameters(params).front() << " in\n" << styled;
  EXPECT_TRUE(Has(params, 1)) << "bold (headings, the agent)\n" << styled;
  EXPECT_TRUE(Has(params, 4)) << "underline (links)\n" << styled;
  EXPECT_TRUE(Has(params, 7)) << "reverse (the footer)\n" << styled;

  // NO_COLOR set but empty does not count (no-color.org): 256 colours.
  StartRaw("b", {"resume", session}, 100, 30, "· idle", {{"NO_COLOR", ""}});
  ASSERT_TRUE(ShowsTheWholeStyledAnswer(tmux_.WaitFor("b", ShowsTheWholeStyledAnswer)))
      << tmux_.Capture("b");
  styled = tmux_.Capture("b", /*escapes=*/true);
  EXPECT_NE(styled.find("38;5;180"), std::string::npos) << "inline code in colour 180\n" << styled;

  // An 8-colour terminal gets the basic colours, never 256-colour ones.
  StartRaw("c", {"resume", session}, 100, 30, "· idle", {{"TERM", "tmux"}});
  ASSERT_TRUE(ShowsTheWholeStyledAnswer(tmux_.WaitFor("c", ShowsTheWholeStyledAnswer)))
      << tmux_.Capture("c");
  styled = tmux_.Capture("c", /*escapes=*/true);
  params = SgrParameters(styled);
  std::vector<int> colours = ColourParameters(params);
  EXPECT_TRUE(Has(colours, 33)) << "inline code in yellow\n" << styled;
  EXPECT_FALSE(Has(colours, 38)) << styled;
  EXPECT_FALSE(Has(colours, 48)) << styled;
}

TEST_F(TuiE2eTest, CtrlZSuspendsToTheShellAndFgRedrawsTheSession) {
  StartDaemon();
  // An interactive shell with job control runs raw, as a user's would.
  absl::Status started = tmux_.Start("z", {"/bin/bash", "--norc", "--noprofile", "-i"},
                                     RawEnv({{"PS1", "shell$ "}}), 100, 30);
  ASSERT_TRUE(started.ok()) << started;
  ASSERT_TRUE(tmux_.WaitForText("z", "shell$")) << tmux_.Capture("z");
  Send("z", absl::StrCat(e2e::BinaryPath("raw"), " --cwd ", daemon_->workdir()));
  ASSERT_TRUE(tmux_.WaitForText("z", "· idle")) << tmux_.Capture("z");
  fake_.Enqueue(chat::TextAnswer("Before the suspension."));
  Send("z", "first");
  ASSERT_TRUE(tmux_.WaitForText("z", "Before the suspension.")) << tmux_.Capture("z");
  EXPECT_EQ(tmux_.PaneFormat("z", "#{alternate_on}"), "1");
  EXPECT_EQ(tmux_.WaitForFormat("z", "#{mouse_any_flag}", "1"), "1");

  // Ctrl-Z: the shell's screen and prompt come back, the terminal's modes
  // are off, and the shell works.
  tmux_.SendKeys("z", {"C-z"});
  std::string screen = tmux_.WaitFor("z", [](const std::string& s) {
    return s.find("Stopped") != std::string::npos && Count(s, "shell$") >= 2;
  });
  EXPECT_NE(screen.find("Stopped"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("Before the suspension."), std::string::npos) << screen;
  EXPECT_EQ(tmux_.PaneFormat("z", "#{alternate_on}"), "0") << "still on the alternate screen";
  EXPECT_EQ(tmux_.PaneFormat("z", "#{mouse_any_flag}"), "0") << "mouse reporting left on";
  Send("z", "echo shell-$((6*7))");
  EXPECT_TRUE(tmux_.WaitForText("z", "shell-42")) << tmux_.Capture("z");

  // fg: the session is drawn again, intact, and still works.
  Send("z", "fg");
  screen = tmux_.WaitFor("z", [](const std::string& s) {
    return s.find("› first") != std::string::npos &&
           s.find("Before the suspension.") != std::string::npos &&
           s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("› first"), std::string::npos) << screen;
  EXPECT_NE(screen.find("Before the suspension."), std::string::npos) << screen;
  EXPECT_EQ(screen.find("shell-42"), std::string::npos) << screen;
  EXPECT_EQ(tmux_.WaitForFormat("z", "#{alternate_on}", "1"), "1");
  EXPECT_EQ(tmux_.WaitForFormat("z", "#{mouse_any_flag}", "1"), "1") << "mouse reporting is back";
  fake_.Enqueue(chat::TextAnswer("After the resumption."));
  Send("z", "second");
  EXPECT_TRUE(tmux_.WaitForText("z", "After the resumption.")) << tmux_.Capture("z");

  // A SIGTSTP from elsewhere suspends the same way, restoring the terminal.
  int raw_pid = FirstChild(tmux_.PanePid("z"));  // the shell's child
  ASSERT_GT(raw_pid, 0);
  ASSERT_EQ(kill(raw_pid, SIGTSTP), 0);
  screen = tmux_.WaitFor("z", [](const std::string& s) {
    return Count(s, "Stopped") >= 2 && s.find("shell-42") != std::string::npos;
  });
  EXPECT_EQ(Count(screen, "Stopped"), 2u) << screen;
  EXPECT_EQ(tmux_.PaneFormat("z", "#{alternate_on}"), "0") << "still on the alternate screen";
  EXPECT_EQ(tmux_.PaneFormat("z", "#{mouse_any_flag}"), "0") << "mouse reporting left on";
  Send("z", "fg");
  ASSERT_TRUE(tmux_.WaitForText("z", "After the resumption.")) << tmux_.Capture("z");
  EXPECT_EQ(tmux_.WaitForFormat("z", "#{mouse_any_flag}", "1"), "1");

  // Leave raw, then the shell.
  tmux_.SendKeys("z", {"C-d"});
  ASSERT_TRUE(tmux_.WaitForText("z", "resume it with")) << tmux_.Capture("z");
  Send("z", "exit");
  EXPECT_EQ(tmux_.WaitForExit("z"), 0) << tmux_.Capture("z");
}

// An answer nested 100 000 block quotes deep is shown, and raw lives on.
TEST_F(TuiE2eTest, ADeeplyNestedAnswerDoesNotCrash) {
  StartDaemon();
  fake_.Enqueue(chat::TextAnswer(std::string(100000, '>') + " the-end"));
  StartRaw("a", {"--cwd", daemon_->workdir()});
  Send("a", "nest");
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("the-end") != std::string::npos && s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("the-end"), std::string::npos) << screen;
  EXPECT_EQ(tmux_.PaneFormat("a", "#{pane_dead}"), "0");
}

// A directory can be named anything: the header shows the session's cwd
// with a bidi override in its name as a marker, not applied.
TEST_F(TuiE2eTest, TheHeaderShowsAnInvisibleCharacterInTheCwdAsAMarker) {
  StartDaemon();
  const std::string cwd = daemon_->workdir() + "/\u202Ex";
  ASSERT_EQ(mkdir(cwd.c_str(), 0700), 0);
  StartRaw("a", {"--cwd", cwd}, 200);
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("/\u27E8U+202E\u27E9x") != std::string::npos;
  });
  EXPECT_NE(screen.find(", in " + daemon_->workdir() + "/\u27E8U+202E\u27E9x"), std::string::npos)
      << screen;
  EXPECT_EQ(screen.find("\u202E"), std::string::npos) << screen;
}

// Ctrl-L repaints what something else wrote over the screen, although the
// rows themselves did not change.
TEST_F(TuiE2eTest, CtrlLRepaintsWhatSomethingElseWrote) {
  StartDaemon();
  StartRaw("a", {"--cwd", daemon_->workdir()});
  std::string tty = tmux_.PaneFormat("a", "#{pane_tty}");
  ASSERT_FALSE(tty.empty());
  {
    std::ofstream out(tty);
    out << "\x1b[3;1HGARBAGE-GARBAGE" << std::flush;
  }
  ASSERT_TRUE(tmux_.WaitForText("a", "GARBAGE-GARBAGE")) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"C-l"});
  // The whole repainted screen, not the first capture without the garbage:
  // the repaint writes every row again, and tmux may show a frame it has
  // only partly read.
  std::string screen = tmux_.WaitFor(
      "a",
      [](const std::string& s) {
        return s.find("GARBAGE") == std::string::npos && s.find("· idle") != std::string::npos;
      },
      absl::Seconds(5));
  EXPECT_EQ(screen.find("GARBAGE"), std::string::npos) << screen;
  EXPECT_NE(screen.find("· idle"), std::string::npos) << screen;
}

TEST_F(TuiE2eTest, ACrashRestoresTheTerminal) {
  StartDaemon();
  // No core file for the deliberate crash.
  std::string command = absl::StrCat("ulimit -c 0; exec ", e2e::BinaryPath("raw"), " --cwd ",
                                 daemon_->workdir());
  absl::Status started = tmux_.Start("a", {"/bin/sh", "-c", command}, RawEnv(), 100, 30);
  ASSERT_TRUE(started.ok()) << started;
  ASSERT_TRUE(tmux_.WaitForText("a", "· idle")) << tmux_.Capture("a");
  EXPECT_EQ(tmux_.PaneFormat("a", "#{alternate_on}"), "1");
  size_t before = tmux_.Output("a").size();
  const int pid = tmux_.PanePid("a");
  ASSERT_GT(pid, 0) << "no program runs in the pane";  // kill(0) would signal the test's group
  ASSERT_EQ(kill(pid, SIGSEGV), 0);
  EXPECT_EQ(tmux_.WaitForExit("a"), 128 + SIGSEGV);
  EXPECT_TRUE(tmux_.WaitForText("a", "raw: crashed; the terminal was restored")) << tmux_.Capture("a");
  std::string ending = tmux_.Output("a").substr(before);
  EXPECT_NE(ending.find("\x1b[?1000l"), std::string::npos) << "mouse reporting left on";
  EXPECT_NE(ending.find("\x1b[?2004l"), std::string::npos) << "bracketed paste left on";
  EXPECT_NE(ending.find("\x1b[?1049l"), std::string::npos) << "the alternate screen was left";
  EXPECT_EQ(tmux_.PaneFormat("a", "#{alternate_on}"), "0");
  EXPECT_EQ(tmux_.PaneFormat("a", "#{mouse_any_flag}"), "0");
}

TEST_F(TuiE2eTest, ALargePasteArrivesWholeAndWaitsForEnter) {
  StartDaemon();
  StartRaw("a", {"--cwd", daemon_->workdir()});
  constexpr int kLines = 400;
  std::string text;
  for (int i = 0; i < kLines; ++i) {
    absl::StrAppend(&text, i > 0 ? "\n" : "",
                    absl::StrFormat("pasted line %03d, with a few words to make it longer", i));
  }
  ASSERT_GT(text.size(), 20000u);
  tmux_.Paste("a", text);
  // The whole paste is in the editor (its end is shown); nothing was sent.
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("pasted line 399, with a few words") != std::string::npos;
  });
  ASSERT_NE(screen.find("pasted line 399, with a few words"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("Working"), std::string::npos) << screen;
  EXPECT_EQ(fake_.requests().size(), 0u);
  fake_.Enqueue(chat::TextAnswer("Got all the lines."));
  tmux_.SendKeys("a", {"Enter"});
  ASSERT_TRUE(tmux_.WaitForText("a", "Got all the lines.")) << tmux_.Capture("a");
  ASSERT_EQ(fake_.requests().size(), 1u);
  auto body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  std::string sent;
  for (const auto& message : (*body)["messages"]) {
    if (message["role"] != "user") continue;
    const auto& content = message["content"];
    if (content.is_string()) {
      sent = content.get<std::string>();
    } else {
      sent.clear();
      for (const auto& part : content) sent += part.value("text", "");
    }
  }
  EXPECT_EQ(sent, text);
}

}  // namespace
}  // namespace raw::tui::testing

namespace raw::tui::testing {
namespace {

// Terminal appearance (plain mode, NO_COLOR, colour depth, width) belongs to
// the client: a session continued from a differently set-up terminal sends
// the same prompt-cache key and the same request prefix.
TEST_F(TuiE2eTest, TerminalAppearanceNeverChangesTheCacheKeyOrThePrefix) {
  StartDaemon();
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("First answer."));
  StartRaw("plain", {"--plain", "resume", session}, 60, 20, "idle",
           {{"NO_COLOR", "1"}, {"TERM", "tmux"}});
  Send("plain", "first");
  ASSERT_TRUE(tmux_.WaitForText("plain", "First answer.")) << tmux_.Capture("plain");
  Send("plain", "/quit");
  EXPECT_EQ(tmux_.WaitForExit("plain"), 0) << tmux_.Capture("plain");

  fake_.Enqueue(chat::TextAnswer("Second answer."));
  StartRaw("rich", {"resume", session}, 140, 40, "· idle", {{"TERM", "tmux-256color"}});
  Send("rich", "second");
  ASSERT_TRUE(tmux_.WaitForText("rich", "Second answer.")) << tmux_.Capture("rich");

  auto requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  auto first = requests[0].BodyJson();
  auto second = requests[1].BodyJson();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*first)["prompt_cache_key"], (*second)["prompt_cache_key"]);
  EXPECT_EQ((*first)["tools"], (*second)["tools"]);
  const auto& before = (*first)["messages"];
  const auto& after = (*second)["messages"];
  ASSERT_GT(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i], after[i]) << i;
}

}  // namespace
}  // namespace raw::tui::testing
