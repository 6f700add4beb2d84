#include "clients/tui/screen.h"

#include <map>

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

class RecordingCanvas : public Canvas {
 public:
  void WriteRow(int row, const StyledLine& line) override {
    rows.push_back(row);
    last[row] = line.PlainText();
  }
  void Commit(const std::optional<CursorPos>&) override {
    ++commits;
    if (repaint_pending) ++repaints_committed;
    repaint_pending = false;
  }
  void ForceRepaint() override { repaint_pending = true; }

  std::vector<int> rows;
  bool repaint_pending = false;
  int repaints_committed = 0;
  std::map<int, std::string> last;
  int commits = 0;
};

TEST(ScreenTest, WritesOnlyTheRowsThatChanged) {
  RecordingCanvas canvas;
  Screen screen(canvas);
  screen.Resize(4, 10);
  EXPECT_EQ(screen.Present({StyledLine("a"), StyledLine("b")}, std::nullopt), 4);
  canvas.rows.clear();
  EXPECT_EQ(screen.Present({StyledLine("a"), StyledLine("b!")}, std::nullopt), 1);
  EXPECT_EQ(canvas.rows, std::vector<int>{1});
  EXPECT_EQ(canvas.last[1], "b!        ");  // padded to the width
  int commits = canvas.commits;
  EXPECT_EQ(screen.Present({StyledLine("a"), StyledLine("b!")}, std::nullopt), 0);
  EXPECT_EQ(canvas.commits, commits) << "nothing changed, nothing committed";
}

TEST(ScreenTest, AStyleChangeIsAChange) {
  RecordingCanvas canvas;
  Screen screen(canvas);
  screen.Resize(1, 5);
  screen.Present({StyledLine("x")}, std::nullopt);
  EXPECT_EQ(screen.Present({StyledLine("x", Style{Role::kError})}, std::nullopt), 1);
}

TEST(ScreenTest, ResizeRewritesEveryRowAndCursorMovesCommit) {
  RecordingCanvas canvas;
  Screen screen(canvas);
  screen.Resize(2, 5);
  screen.Present({StyledLine("x")}, CursorPos{1, 0});
  int commits = canvas.commits;
  EXPECT_EQ(screen.Present({StyledLine("x")}, CursorPos{1, 1}), 0);
  EXPECT_EQ(canvas.commits, commits + 1);
  screen.Resize(3, 8);
  EXPECT_EQ(screen.Present({StyledLine("x")}, CursorPos{1, 1}), 3);
}

TEST(ScreenTest, RepaintRewritesEveryRowAndHasTheCanvasRepaintOnce) {
  RecordingCanvas canvas;
  Screen screen(canvas);
  screen.Resize(3, 5);
  screen.Present({StyledLine("x")}, std::nullopt);
  screen.Invalidate();
  EXPECT_EQ(screen.Present({StyledLine("x")}, std::nullopt), 3);
  EXPECT_EQ(canvas.repaints_committed, 0) << "Invalidate alone repaints nothing";
  screen.Repaint();
  EXPECT_EQ(screen.Present({StyledLine("x")}, std::nullopt), 3);
  EXPECT_EQ(canvas.repaints_committed, 1);
  screen.Present({StyledLine("y")}, std::nullopt);
  EXPECT_EQ(canvas.repaints_committed, 1);
}

}  // namespace
}  // namespace raw::tui
