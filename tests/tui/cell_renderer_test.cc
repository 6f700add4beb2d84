#include "clients/tui/cell_renderer.h"

#include "gtest/gtest.h"
#include "tests/tui/lines_text.h"

namespace raw::tui {
namespace {

Cell Card(ToolStatus status) {
  Cell cell;
  cell.id = 1;
  cell.kind = CellKind::kTool;
  cell.call.call_id = "c1";
  cell.call.name = "read_file";
  cell.call.tool = "builtin/read_file";
  cell.call.arguments = R"({"path":"src/main.cc","limit":10})";
  cell.call.status = status;
  return cell;
}

RenderContext Ctx(int width = 60) {
  RenderContext ctx;
  ctx.width = width;
  ctx.now_unix_ms = 10000;
  return ctx;
}

TEST(CellRendererTest, ACardShowsNameKeyArgumentAndStatus) {
  Lines lines = RenderCell(Card(ToolStatus::kWaitingApproval), Ctx());
  ASSERT_EQ(lines.size(), 1u);
  std::string header = lines[0].PlainText();
  EXPECT_EQ(header.rfind("? read_file  src/main.cc", 0), 0u) << header;
  EXPECT_NE(header.find("waiting for approval"), std::string::npos);
  EXPECT_EQ(lines[0].Width(), 60);  // status right-aligned
}

TEST(CellRendererTest, ARunningCardCountsSeconds) {
  Cell cell = Card(ToolStatus::kRunning);
  cell.call.started_unix_ms = 7000;
  EXPECT_NE(RenderCell(cell, Ctx()).at(0).PlainText().find("running 3.0 s"), std::string::npos);
}

TEST(CellRendererTest, ARunningCardShowsItsLastProgressUntilItEnds) {
  Cell cell = Card(ToolStatus::kRunning);
  cell.call.progress = "2/3 step 2";
  Lines running = RenderCell(cell, Ctx());
  ASSERT_EQ(running.size(), 2u);
  EXPECT_EQ(running[1].PlainText(), "  └ 2/3 step 2");
  cell.call.status = ToolStatus::kDone;
  cell.call.duration_ms = 5;
  EXPECT_EQ(LinesText(RenderCell(cell, Ctx())).find("step 2"), std::string::npos);
}

TEST(CellRendererTest, ResultsAreCollapsedUntilExpanded) {
  Cell cell = Card(ToolStatus::kDone);
  cell.call.duration_ms = 12;
  cell.call.content = "line one\nline two\nline three\n";
  Lines collapsed = RenderCell(cell, Ctx());
  EXPECT_EQ(LinesText(collapsed).find("line two"), std::string::npos);
  EXPECT_NE(LinesText(collapsed).find("└ line one … (3 lines)"), std::string::npos)
      << LinesText(collapsed);
  EXPECT_NE(collapsed[0].PlainText().find("done · 12 ms"), std::string::npos);
  cell.expanded = true;
  std::string expanded = LinesText(RenderCell(cell, Ctx()));
  EXPECT_NE(expanded.find("path: src/main.cc"), std::string::npos) << expanded;
  EXPECT_NE(expanded.find("│ line two"), std::string::npos) << expanded;
}

TEST(CellRendererTest, ABashCardWithoutOutputShowsTheExitStatus) {
  Cell cell = Card(ToolStatus::kDone);
  cell.call.name = "bash";
  cell.call.tool = "builtin/bash";
  cell.call.arguments = R"({"command":"true"})";
  cell.call.duration_ms = 5;
  cell.call.content = "(no output)\n[exit code 0]";
  std::string collapsed = LinesText(RenderCell(cell, Ctx()));
  EXPECT_NE(collapsed.find("└ (no output, exit 0)"), std::string::npos) << collapsed;
  EXPECT_EQ(collapsed.find("lines)"), std::string::npos) << collapsed;
}

TEST(CellRendererTest, DiffsAreColoured) {
  Cell cell = Card(ToolStatus::kDone);
  cell.call.name = "edit_file";
  cell.call.duration_ms = 3;
  cell.call.content = "edited";
  cell.call.display = "--- a/x.cc\n+++ b/x.cc\n@@ -1,2 +1,2 @@\n-old line\n+new line\n same\n";
  EXPECT_NE(LinesText(RenderCell(cell, Ctx())).find("diff: +1 -1"), std::string::npos);
  cell.expanded = true;
  Lines lines = RenderCell(cell, Ctx());
  auto role_of = [&](const std::string& needle) {
    for (const auto& l : lines) {
      for (const auto& s : l.spans) {
        if (s.text.find(needle) != std::string::npos) return s.style.role;
      }
    }
    return Role::kCount;
  };
  EXPECT_EQ(role_of("+new line"), Role::kDiffAdd);
  EXPECT_EQ(role_of("-old line"), Role::kDiffDel);
  EXPECT_EQ(role_of("@@ -1,2"), Role::kDiffHunk);
}

TEST(CellRendererTest, ACardShowsWholeAndExpandsToTheFullResult) {
  Cell cell = Card(ToolStatus::kDone);
  cell.call.name = "raven_task";
  cell.call.duration_ms = 4;
  cell.call.display = "Raven rvn-0123456789ab-1 · active · phase discover\n"
                      "Sources 3 (1 verified) · Claims 2 · Limitations 1";
  cell.call.content = "# Artifact\nThe whole rendered artifact body.";
  std::string collapsed = LinesText(RenderCell(cell, Ctx()));
  EXPECT_NE(collapsed.find("└ Raven rvn-0123456789ab-1"), std::string::npos) << collapsed;
  EXPECT_NE(collapsed.find("Sources 3 (1 verified)"), std::string::npos) << collapsed;
  EXPECT_EQ(collapsed.find("whole rendered artifact"), std::string::npos) << collapsed;
  cell.expanded = true;
  std::string expanded = LinesText(RenderCell(cell, Ctx()));
  EXPECT_NE(expanded.find("Limitations 1"), std::string::npos) << expanded;
  EXPECT_NE(expanded.find("The whole rendered artifact body."), std::string::npos) << expanded;
  EXPECT_LT(expanded.find("Limitations 1"), expanded.find("# Artifact")) << expanded;
}

TEST(CellRendererTest, ACardCannotDriveTheTerminal) {
  Cell cell = Card(ToolStatus::kDone);
  cell.call.duration_ms = 1;
  cell.call.display = "card \x1b[2Jline";
  cell.call.content = "body \x1b]52;c;aGk=\x07";
  cell.expanded = true;
  std::string expanded = LinesText(RenderCell(cell, Ctx()));
  EXPECT_EQ(expanded.find('\x1b'), std::string::npos) << expanded;
  EXPECT_EQ(expanded.find('\x07'), std::string::npos) << expanded;
}

// The name a model gave a call is shown on the card's first row, its line
// breaks as markers: it cannot add rows that read as the card's.
TEST(CellRendererTest, ACardsNameStaysOnItsRow) {
  Cell cell = Card(ToolStatus::kWaitingApproval);
  cell.call.name = "notes\npath: README.md";
  Lines lines = RenderCell(cell, Ctx(80));
  ASSERT_EQ(lines.size(), 1u) << LinesText(lines);
  EXPECT_EQ(lines[0].PlainText().rfind("? notes\u27E8U+000A\u27E9path: README.md", 0), 0u)
      << LinesText(lines);
}

TEST(CellRendererTest, ReasoningIsDimAndCollapsible) {
  Cell cell;
  cell.id = 2;
  cell.kind = CellKind::kReasoning;
  cell.text = "first I will look at the files\nthen decide";
  Lines collapsed = RenderCell(cell, Ctx());
  ASSERT_EQ(collapsed.size(), 1u);
  EXPECT_EQ(collapsed[0].PlainText(), "▸ Thought (9 words)");
  cell.expanded = true;
  Lines expanded = RenderCell(cell, Ctx());
  ASSERT_EQ(expanded.size(), 3u);
  EXPECT_EQ(expanded[1].spans.back().style.role, Role::kDim);
}

TEST(CellRendererTest, UserMessagesWrapUnderThePrompt) {
  Cell cell;
  cell.kind = CellKind::kUser;
  cell.text = "please fix the failing parser test";
  EXPECT_EQ(LinesText(RenderCell(cell, Ctx(20))), "› please fix the\n  failing parser\n  test\n");
}

}  // namespace
}  // namespace raw::tui
