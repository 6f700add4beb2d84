// Tools around the terminal client, disabled in normal runs:
//
//  - DISABLED_CaptureScreenshot writes <build>/terminal.ansi, a capture of a
//    real session (capture-pane -e), which tests/tui/ansi_to_svg.py turns
//    into docs/images/terminal.svg;
//  - DISABLED_MeasureStartup prints the time from starting `raw` to an
//    interactive prompt with the daemon already running.
//
//   build/bin/raw_tui_tests --gtest_also_run_disabled_tests
//       --gtest_filter='*CaptureScreenshot*:*MeasureStartup*'
#include <fstream>
#include <iostream>

#include "absl/strings/str_split.h"
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
  // Expand the edit card to show its diff.
  std::string screen = tmux_.Capture("a");
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

}  // namespace
}  // namespace raw::tui::testing
