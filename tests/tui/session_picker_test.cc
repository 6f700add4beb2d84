#include "clients/tui/session_picker.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

constexpr int64_t kNow = 1714572180000;
constexpr int64_t kDay = 24LL * 60 * 60 * 1000;

v1::Session Session(const std::string& id, const std::string& title, int64_t expires_at) {
  v1::Session s;
  s.set_id(id);
  s.set_agent("coder");
  s.set_title(title);
  s.set_last_activity_unix_ms(kNow - kDay);
  s.set_expires_at_unix_ms(expires_at);
  return s;
}

std::string PickerRowOf(const Lines& lines, const std::string& id) {
  for (const StyledLine& l : lines) {
    std::string text = l.PlainText();
    if (text.find(" " + id + " ") != std::string::npos) return text;
  }
  return "";
}

TEST(SessionPickerTest, EachRowSaysWhenTheSessionExpires) {
  SessionPicker picker;
  picker.Open({Session("sess_aaaa1111", "fix the parser", kNow + 29 * kDay + 1000),
               Session("sess_bbbb2222", "", 0),
               Session("sess_cccc3333", "old work", kNow - 1000)},
              kNow);
  Lines lines = picker.Render(120, 20, Glyphs::Ascii());
  EXPECT_EQ(lines[0].PlainText(), "Resume a session");
  std::string first = PickerRowOf(lines, "aaaa1111");
  std::string never = PickerRowOf(lines, "bbbb2222");
  std::string due = PickerRowOf(lines, "cccc3333");
  EXPECT_NE(first.find("expires in 29 days"), std::string::npos) << first;
  EXPECT_NE(first.find("fix the parser"), std::string::npos) << first;
  EXPECT_NE(never.find("no expiry"), std::string::npos) << never;
  EXPECT_NE(never.find("(no messages yet)"), std::string::npos) << never;
  EXPECT_NE(due.find("expires now"), std::string::npos) << due;
  // The expiry column lines up: titles start in the same column.
  EXPECT_EQ(first.find("fix the parser"), due.find("old work"));
}

TEST(SessionPickerTest, EnterChoosesTheSelectedSession) {
  SessionPicker picker;
  picker.Open({Session("sess_aaaa1111", "a", 0), Session("sess_bbbb2222", "b", 0)}, kNow);
  InputEvent down;
  down.key = Key::kDown;
  EXPECT_EQ(picker.HandleKey(down, 10), SessionPicker::Outcome::kNone);
  InputEvent enter;
  enter.key = Key::kEnter;
  ASSERT_EQ(picker.HandleKey(enter, 10), SessionPicker::Outcome::kChosen);
  ASSERT_NE(picker.chosen(), nullptr);
  EXPECT_EQ(picker.chosen()->id(), "sess_bbbb2222");
}

}  // namespace
}  // namespace raw::tui
