#include "clients/tui/input_editor.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

TEST(InputEditorTest, EditsAcrossLinesAndGraphemes) {
  InputEditor e;
  e.Insert("héllo");
  e.InsertNewline();
  e.Insert("wörld 😀");
  EXPECT_EQ(e.text(), "héllo\nwörld 😀");
  e.Backspace();  // the whole emoji
  EXPECT_EQ(e.text(), "héllo\nwörld ");
  e.Up();
  e.Home();
  e.Right();
  e.Delete();  // é, two bytes
  EXPECT_EQ(e.text(), "hllo\nwörld ");
  e.End();
  e.Insert("!");
  EXPECT_EQ(e.text(), "hllo!\nwörld ");
}

TEST(InputEditorTest, PastedCarriageReturnsBecomeNewlines) {
  InputEditor e;
  e.Insert("a\r\nb\rc\x1b[31m");
  EXPECT_EQ(e.text(), "a\nb\nc[31m");
}

TEST(InputEditorTest, UpAndDownWalkTheHistoryAtTheEdges) {
  InputEditor e;
  e.SetHistory({"first", "second"});
  e.Insert("draft");
  e.Up();
  EXPECT_EQ(e.text(), "second");
  e.Up();
  EXPECT_EQ(e.text(), "first");
  e.Up();
  EXPECT_EQ(e.text(), "first");
  e.Down();
  e.Down();
  EXPECT_EQ(e.text(), "draft");
  EXPECT_EQ(e.Take(), "draft");
  e.Up();
  EXPECT_EQ(e.text(), "draft");  // sent prompts join the history
}

TEST(InputEditorTest, RendersSoftWrappedWithTheCursor) {
  InputEditor e;
  e.Insert("abcdefgh\n日本語");
  InputEditor::View view = e.Render(7, StyledLine("> "), 10);
  std::vector<std::string> rows;
  for (const auto& l : view.lines) rows.push_back(l.PlainText());
  EXPECT_EQ(rows, (std::vector<std::string>{"> abcde", "  fgh", "  日本", "  語"}));
  EXPECT_EQ(view.cursor_row, 3);
  EXPECT_EQ(view.cursor_col, 4);
  // Scrolled to the cursor when taller than allowed.
  InputEditor::View small = e.Render(7, StyledLine("> "), 2);
  ASSERT_EQ(small.lines.size(), 2u);
  EXPECT_EQ(small.cursor_row, 1);
}

TEST(InputEditorTest, UpAndDownKeepTheColumnAsShownAcrossTabs) {
  // A tab shows as four columns; moving between lines lands under the
  // column the cursor was shown at.
  InputEditor e;
  e.Insert("\tabcdef\n0123456789");
  e.Home();
  for (int i = 0; i < 6; ++i) e.Right();  // after "012345", column 6
  e.Up();
  e.Insert("|");
  EXPECT_EQ(e.text(), "\tab|cdef\n0123456789");
  InputEditor::View view = e.Render(40, StyledLine("> "), 10);
  EXPECT_EQ(view.cursor_row, 0);
  EXPECT_EQ(view.cursor_col, 2 + 7);  // the prompt, the tab, "ab|"
  e.Down();                           // from column 7 to column 7 of the second line
  e.Insert("^");
  EXPECT_EQ(e.text(), "\tab|cdef\n0123456^789");
}

TEST(InputEditorTest, KillCommands) {
  InputEditor e;
  e.Insert("one two three");
  e.DeleteWordBack();
  EXPECT_EQ(e.text(), "one two ");
  e.Home();
  e.KillToEnd();
  EXPECT_EQ(e.text(), "");
}

}  // namespace
}  // namespace raw::tui
