#include "clients/tui/approval_panel.h"

#include <algorithm>

#include "gtest/gtest.h"
#include "tests/tui/lines_text.h"

namespace raw::tui {
namespace {

v1::ApprovalRequested Request() {
  v1::ApprovalRequested r;
  r.set_request_id("r1");
  v1::ApprovalCall* a = r.add_calls();
  a->set_call_id("c1");
  a->set_tool("builtin/bash");
  a->set_arguments(R"({"command":"rm -rf build"})");
  a->set_state(v1::APPROVAL_STATE_PENDING);
  a->set_reason("approval_mode default asks for builtin/bash");
  v1::ApprovalCall* b = r.add_calls();
  b->set_call_id("c2");
  b->set_tool("builtin/read_file");
  b->set_arguments(R"({"path":"a.txt"})");
  b->set_state(v1::APPROVAL_STATE_ALLOWED);
  return r;
}

InputEvent Char(const std::string& c) {
  InputEvent e;
  e.key = Key::kChar;
  e.text = c;
  return e;
}

InputEvent PanelKeyOf(Key k) {
  InputEvent e;
  e.key = k;
  return e;
}

TEST(ApprovalPanelTest, ShowsTheWholeBatchWithArguments) {
  ApprovalPanel panel;
  panel.Show(Request());
  std::string text = LinesText(panel.Render(80, 20, Glyphs::Unicode(), false).lines);
  EXPECT_NE(text.find("The agent wants to run 2 tool calls:"), std::string::npos) << text;
  EXPECT_NE(text.find("1. builtin/bash  needs approval: approval_mode default"), std::string::npos) << text;
  EXPECT_NE(text.find("command: rm -rf build"), std::string::npos) << text;
  EXPECT_NE(text.find("2. builtin/read_file  allowed"), std::string::npos) << text;
  EXPECT_NE(text.find("[y] Allow once  [a] Allow for this session  [n] Deny  [m] Deny with a message"),
            std::string::npos) << text;
  std::string follower = LinesText(panel.Render(80, 20, Glyphs::Unicode(), true).lines);
  EXPECT_EQ(follower.find("[y]"), std::string::npos);
}

TEST(ApprovalPanelTest, LettersAnswerAtOnce) {
  ApprovalPanel panel;
  panel.Show(Request());
  bool handled = false;
  auto answer = panel.HandleKey(Char("a"), &handled);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_ALLOW_SESSION);
  answer = panel.HandleKey(Char("n"), &handled);
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_DENY);
  EXPECT_TRUE(answer->message.empty());
}

TEST(ApprovalPanelTest, ArrowsAndEnterChooseAndMTakesAMessage) {
  ApprovalPanel panel;
  panel.Show(Request());
  bool handled = false;
  panel.HandleKey(PanelKeyOf(Key::kRight), &handled);
  panel.HandleKey(PanelKeyOf(Key::kRight), &handled);
  panel.HandleKey(PanelKeyOf(Key::kRight), &handled);
  EXPECT_FALSE(panel.HandleKey(PanelKeyOf(Key::kEnter), &handled).has_value());
  EXPECT_TRUE(panel.entering_message());
  ApprovalPanel::View view = panel.Render(80, 20, Glyphs::Unicode(), false);
  ASSERT_TRUE(view.cursor.has_value());
  EXPECT_NE(LinesText(view.lines).find("Message for the model:"), std::string::npos);
  for (const char* c : {"n", "o", "p", "e"}) panel.HandleKey(Char(c), &handled);
  auto answer = panel.HandleKey(PanelKeyOf(Key::kEnter), &handled);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_DENY);
  EXPECT_EQ(answer->message, "nope");
}

v1::ApprovalRequested CommandRequest(const std::string& command_json) {
  v1::ApprovalRequested r;
  r.set_request_id("r2");
  v1::ApprovalCall* a = r.add_calls();
  a->set_call_id("c1");
  a->set_tool("builtin/bash");
  a->set_arguments(command_json);
  a->set_state(v1::APPROVAL_STATE_PENDING);
  a->set_reason("no rule matched");
  return r;
}

// Rows joined without their breaks and indents: what a wrapped line reads as.
std::string Joined(const Lines& lines) {
  std::string out;
  for (const auto& l : lines) {
    std::string row = l.PlainText();
    out += row.substr(std::min(row.find_first_not_of(' '), row.size()));
  }
  return out;
}

TEST(ApprovalPanelTest, ShowsEveryLineOfTheCommandAndWrapsLongOnesUncut) {
  ApprovalPanel panel;
  std::string long_word(150, 'x');
  panel.Show(CommandRequest(R"({"command":"echo one\necho )" + long_word + R"(\nrm -rf ~"})"));
  ApprovalPanel::View view = panel.Render(40, 40, Glyphs::Unicode(), false);
  std::string text = LinesText(view.lines);
  EXPECT_NE(text.find("command: echo one"), std::string::npos) << text;
  EXPECT_NE(text.find("rm -rf ~"), std::string::npos) << text;
  EXPECT_NE(Joined(view.lines).find(long_word), std::string::npos) << text;
  for (const auto& line : view.lines) EXPECT_LE(line.Width(), 40) << line.PlainText();
  EXPECT_EQ(text.find("press v"), std::string::npos) << text;  // it all fits
}

TEST(ApprovalPanelTest, WhatDoesNotFitIsFoldedBehindAMarkerAndVShowsIt) {
  ApprovalPanel panel;
  std::string command;
  for (int i = 1; i <= 50; ++i) command += "echo line" + std::to_string(i) + "\n";
  panel.Show(CommandRequest(R"({"command":")" + command + R"("})"));
  ApprovalPanel::View folded = panel.Render(80, 12, Glyphs::Unicode(), false);
  EXPECT_LE(folded.lines.size(), 12u);
  std::string text = LinesText(folded.lines);
  EXPECT_NE(text.find("more lines ("), std::string::npos) << text;
  EXPECT_NE(text.find("bytes) - press v to view all"), std::string::npos) << text;
  EXPECT_NE(text.find("[y] Allow once"), std::string::npos) << text;
  EXPECT_EQ(text.find("echo line50"), std::string::npos) << text;
  // Even with hardly any room, the marker is shown.
  EXPECT_NE(LinesText(panel.Render(80, 3, Glyphs::Unicode(), false).lines).find("press v"),
            std::string::npos);

  bool handled = false;
  EXPECT_FALSE(panel.HandleKey(Char("v"), &handled).has_value());
  EXPECT_TRUE(handled);
  std::string viewing = LinesText(panel.Render(80, 12, Glyphs::Unicode(), false).lines);
  EXPECT_NE(viewing.find("lines 1-"), std::string::npos) << viewing;
  for (int i = 0; i < 100; ++i) panel.HandleKey(PanelKeyOf(Key::kDown), &handled);
  std::string end = LinesText(panel.Render(80, 12, Glyphs::Unicode(), false).lines);
  EXPECT_NE(end.find("echo line50"), std::string::npos) << end;
  // Approving does not need viewing.
  auto answer = panel.HandleKey(Char("y"), &handled);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_ALLOW_ONCE);
}

TEST(ApprovalPanelTest, SessionChoicesShowTheRulesTheyAdd) {
  ApprovalPanel panel;
  v1::ApprovalRequested request = CommandRequest(R"({"command":"git status -s"})");
  v1::ApprovalCall* call = request.mutable_calls(0);
  call->add_session_rules()->add_rules("allow builtin/bash command \"git status -s\"");
  call->add_session_rules()->add_rules("allow builtin/bash command \"git status *\"");
  panel.Show(request);
  std::string text = LinesText(panel.Render(100, 20, Glyphs::Unicode(), false).lines);
  EXPECT_NE(text.find("[a] for this session adds: allow builtin/bash command \"git status -s\""),
            std::string::npos) << text;
  EXPECT_NE(text.find("[p] for this session adds: allow builtin/bash command \"git status *\""),
            std::string::npos) << text;
  EXPECT_NE(text.find("[p] Allow the programs for this session"), std::string::npos) << text;
  bool handled = false;
  auto answer = panel.HandleKey(Char("p"), &handled);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_ALLOW_SESSION);
  EXPECT_EQ(answer->session_rule, 1);
  answer = panel.HandleKey(Char("a"), &handled);
  EXPECT_EQ(answer->session_rule, 0);
}

TEST(ApprovalPanelTest, KeysItDoesNotUseAreLeftToTheApp) {
  ApprovalPanel panel;
  panel.Show(Request());
  bool handled = true;
  panel.HandleKey(PanelKeyOf(Key::kEscape), &handled);
  EXPECT_FALSE(handled);
}

}  // namespace
}  // namespace raw::tui
