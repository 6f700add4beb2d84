#include "clients/tui/transcript_view.h"

#include "gtest/gtest.h"
#include "tests/tui/event_builders.h"

namespace raw::tui {
namespace {

using namespace testing;  // NOLINT: event builders

std::vector<std::string> Rows(const TranscriptView::Frame& frame) {
  std::vector<std::string> rows;
  for (const auto& l : frame.rows) rows.push_back(l.PlainText());
  return rows;
}

Transcript Numbered(int n, uint64_t first_seq = 1) {
  Transcript t;
  for (int i = 0; i < n; ++i) {
    t.Apply(TurnStarted(first_seq + static_cast<uint64_t>(i), "m" + std::to_string(i),
                        "t" + std::to_string(i)));
  }
  return t;
}

TEST(TranscriptViewTest, FollowsTheEndWithBlankRowsBetweenCells) {
  Transcript t = Numbered(5);
  TranscriptView view(Glyphs::Unicode());
  auto frame = view.Compose(t, 20, 3, 0);
  EXPECT_EQ(Rows(frame), (std::vector<std::string>{"› m3", "", "› m4"}));
  EXPECT_TRUE(view.following());
  EXPECT_EQ(view.rows_above(), 6);
}

TEST(TranscriptViewTest, ScrollingAnchorsTheViewWhileTextArrivesBelow) {
  Transcript t = Numbered(5);
  TranscriptView view(Glyphs::Unicode());
  view.Compose(t, 20, 3, 0);
  view.ScrollBy(-4);
  auto frame = view.Compose(t, 20, 3, 0);
  EXPECT_EQ(Rows(frame), (std::vector<std::string>{"› m1", "", "› m2"}));
  EXPECT_FALSE(view.following());
  t.Apply(TurnStarted(10, "new", "t9"));
  EXPECT_EQ(Rows(view.Compose(t, 20, 3, 0)), (std::vector<std::string>{"› m1", "", "› m2"}));
  EXPECT_EQ(view.rows_below(), 6);
  view.ScrollBy(100);
  EXPECT_EQ(Rows(view.Compose(t, 20, 3, 0)).back(), "› new");
  EXPECT_TRUE(view.following());
}

TEST(TranscriptViewTest, OlderHistoryInsertedAboveDoesNotMoveTheView) {
  Transcript t = Numbered(3, 10);
  TranscriptView view(Glyphs::Unicode());
  view.ScrollToTop();
  auto before = Rows(view.Compose(t, 20, 2, 0));
  EXPECT_TRUE(view.near_top());
  t.PrependHistory({TurnStarted(1, "old", "t0")});
  EXPECT_EQ(Rows(view.Compose(t, 20, 2, 0)), before);
  EXPECT_EQ(view.rows_above(), 2);
}

TEST(TranscriptViewTest, ResizingReflows) {
  Transcript t;
  t.Apply(TurnStarted(1, "a message that wraps"));
  TranscriptView view(Glyphs::Unicode());
  EXPECT_EQ(view.Compose(t, 40, 5, 0).rows.size(), 1u);
  EXPECT_EQ(Rows(view.Compose(t, 12, 5, 0)),
            (std::vector<std::string>{"› a message", "  that wraps"}));
}

TEST(TranscriptViewTest, RowsKnowTheirCells) {
  Transcript t = Numbered(2);
  TranscriptView view(Glyphs::Unicode());
  auto frame = view.Compose(t, 20, 5, 0);
  ASSERT_EQ(frame.cell_ids.size(), 3u);
  EXPECT_EQ(frame.cell_ids[0], t.cells()[0].id);
  EXPECT_EQ(frame.cell_ids[1], 0u);
  EXPECT_EQ(frame.cell_ids[2], t.cells()[1].id);
}

}  // namespace
}  // namespace raw::tui
