#include "clients/tui/approval_panel.h"

#include "gtest/gtest.h"

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

InputEvent KeyOf(Key k) {
  InputEvent e;
  e.key = k;
  return e;
}

std::string Text(const Lines& lines) {
  std::string out;
  for (const auto& l : lines) out += l.PlainText() + "\n";
  return out;
}

TEST(ApprovalPanelTest, ShowsTheWholeBatchWithArguments) {
  ApprovalPanel panel;
  panel.Show(Request());
  std::string text = Text(panel.Render(80, 20, Glyphs::Unicode(), false).lines);
  EXPECT_NE(text.find("The agent wants to run 2 tool calls:"), std::string::npos) << text;
  EXPECT_NE(text.find("1. builtin/bash  needs approval: approval_mode default"), std::string::npos) << text;
  EXPECT_NE(text.find("command: rm -rf build"), std::string::npos) << text;
  EXPECT_NE(text.find("2. builtin/read_file  allowed"), std::string::npos) << text;
  EXPECT_NE(text.find("[y] Allow once  [a] Allow for this session  [n] Deny  [m] Deny with a message"),
            std::string::npos) << text;
  std::string follower = Text(panel.Render(80, 20, Glyphs::Unicode(), true).lines);
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
  panel.HandleKey(KeyOf(Key::kRight), &handled);
  panel.HandleKey(KeyOf(Key::kRight), &handled);
  panel.HandleKey(KeyOf(Key::kRight), &handled);
  EXPECT_FALSE(panel.HandleKey(KeyOf(Key::kEnter), &handled).has_value());
  EXPECT_TRUE(panel.entering_message());
  ApprovalPanel::View view = panel.Render(80, 20, Glyphs::Unicode(), false);
  ASSERT_TRUE(view.cursor.has_value());
  EXPECT_NE(Text(view.lines).find("Message for the model:"), std::string::npos);
  for (const char* c : {"n", "o", "p", "e"}) panel.HandleKey(Char(c), &handled);
  auto answer = panel.HandleKey(KeyOf(Key::kEnter), &handled);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->decision, v1::APPROVAL_DECISION_DENY);
  EXPECT_EQ(answer->message, "nope");
}

TEST(ApprovalPanelTest, KeysItDoesNotUseAreLeftToTheApp) {
  ApprovalPanel panel;
  panel.Show(Request());
  bool handled = true;
  panel.HandleKey(KeyOf(Key::kEscape), &handled);
  EXPECT_FALSE(handled);
}

}  // namespace
}  // namespace raw::tui
