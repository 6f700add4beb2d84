// Tools around the terminal client, disabled in normal runs:
//
//  - DISABLED_CaptureScreenshot writes <build>/terminal.ansi, a capture of a
//    real session (capture-pane -e), which tests/tui/ansi_to_svg.py turns
//    into docs/images/terminal.svg;
//  - DISABLED_MeasureStartup prints the time from starting `raw` to an
//    interactive prompt with the daemon already running.
//  - DISABLED_MeasureResumeOfALargeSession prints the time from starting
//    `raw resume ID` to the first screen of a session whose model context
//    and history hold RAW_RESUME_ITEMS items (default 100,000), the daemon
//    started but the session not yet loaded: the first screen shows the
//    last answer and the context estimate, which loads the model context.
//
//   build/bin/raw_tui_tests --gtest_also_run_disabled_tests
//       --gtest_filter='*CaptureScreenshot*:*MeasureStartup*:*MeasureResume*'
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/support/seeded_session.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

TEST_F(TuiE2eTest, DISABLED_CaptureScreenshot) {
  StartDaemon();
  std::ofstream(daemon_->workdir() + "/parser.cc")
      << "int ParseItem(Parser& p, int indent) {\n  return p.Next(0);\n}\n";
  std::vector<std::string> first = {
      chat::RoleChunk(),
      chat::ReasoningChunk("The test fails on nested lists; the indent is probably reset. "
                           "Read the parser first."),
      chat::TextChunk("Let me look at the parser.")};
  for (std::string& chunk : chat::ToolCallChunks(0, "c1", "read_file", R"({"path":"parser.cc"})")) {
    first.push_back(std::move(chunk));
  }
  for (const std::string& chunk : {chat::FinishChunk("tool_calls"), chat::UsageChunk(2400, 60, 1800),
                                   chat::Done()}) {
    first.push_back(chunk);
  }
  fake_.Enqueue(chat::Stream(first));
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c2", "edit_file",
        R"json({"path":"parser.cc","old_string":"p.Next(0)","new_string":"p.Next(indent + 2)"})json"}},
      {.prompt_tokens = 2600, .completion_tokens = 40, .cached_tokens = 2304}));
  fake_.Enqueue(chat::TextAnswer(
      "## Fixed\n\n`ParseItem` dropped the indent of **nested** items. Now:\n\n"
      "- each level keeps its indent\n- `make check` passes\n\n"
      "| file | change |\n|---|---|\n| parser.cc | keep the indent |\n",
      {.prompt_tokens = 2800, .completion_tokens = 70, .cached_tokens = 2560}));
  StartRaw("a", {"--cwd", daemon_->workdir()}, 96, 34);
  Send("a", "The nested list test fails. Can you fix it?");
  ASSERT_TRUE(tmux_.WaitForText("a", "keep the indent")) << tmux_.Capture("a");
  ASSERT_TRUE(tmux_.WaitForText("a", "cache")) << tmux_.Capture("a");
  // Expand the edit card to show its diff (a screen with the card on it:
  // tmux may show a frame it has only partly read).
  std::string screen = tmux_.WaitFor(
      "a", [](const std::string& s) { return s.find("edit_file") != std::string::npos; });
  int row = 0;
  std::vector<std::string> lines = absl::StrSplit(screen, '\n');
  for (const std::string& line : lines) {
    if (line.find("edit_file") != std::string::npos) break;
    ++row;
  }
  tmux_.SendText("a", absl::StrCat("\x1b[<0;5;", row + 1, "M"));
  ASSERT_TRUE(tmux_.WaitForText("a", "+  return p.Next(indent + 2);")) << tmux_.Capture("a");
  tmux_.SendText("a", "Thanks. Now run the whole test suite");
  ASSERT_TRUE(tmux_.WaitForText("a", "whole test suite")) << tmux_.Capture("a");
  std::ofstream(std::string(RAW_BINARY_DIR) + "/terminal.ansi") << tmux_.Capture("a", true);
  std::cout << "wrote " << RAW_BINARY_DIR << "/terminal.ansi\n";
}

TEST_F(TuiE2eTest, DISABLED_MeasureStartup) {
  StartDaemon();
  for (int i = 0; i < 5; ++i) {
    std::string name = absl::StrCat("s", i);
    absl::Time start = absl::Now();
    StartRaw(name, {"--cwd", daemon_->workdir()});
    std::cout << "raw start to interactive prompt: "
              << absl::ToDoubleMilliseconds(absl::Now() - start) << " ms\n";
  }
}

TEST_F(TuiE2eTest, DISABLED_MeasureResumeOfALargeSession) {
  const char* env = std::getenv("RAW_RESUME_ITEMS");
  const int items = env != nullptr ? std::atoi(env) : 100000;
  ASSERT_TRUE(fake_.status().ok()) << fake_.status();
  daemon_ = std::make_unique<e2e::TestDaemon>(absl::StrReplaceAll(
      kTuiConfig, {{"${BASE_URL}", fake_.base_url()}, {"${APPROVAL}", "allow_all"}}));
  const std::string id = "sess_largeresume000001";
  absl::Status seeded = e2e::SeedSession(*daemon_, id, "reviewer", items);
  ASSERT_TRUE(seeded.ok()) << seeded;
  ASSERT_TRUE(daemon_->Start().ok());
  const std::string last = absl::StrCat(items % 2 == 0 ? "answer " : "question ", items);
  absl::Time start = absl::Now();
  StartRaw("r", {"resume", id}, 100, 30, last);
  std::cout << "raw resume of " << items << " items to the last answer on screen: "
            << absl::ToDoubleMilliseconds(absl::Now() - start) << " ms\n";
  // The footer's estimate ("context ~7.80M") needs the whole model context.
  if (tmux_.WaitForText("r", "context ~")) {
    std::cout << "  and to the context estimate in the footer: "
              << absl::ToDoubleMilliseconds(absl::Now() - start) << " ms\n";
  } else {
    std::cout << "  no context estimate shown:\n" << tmux_.Capture("r");
  }
}

}  // namespace
}  // namespace raw::tui::testing
