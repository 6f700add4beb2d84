#include "clients/tui/markdown_renderer.h"

#include <numeric>

#include "clients/tui/markdown_plain.h"
#include "clients/tui/markdown_table.h"
#include "gtest/gtest.h"
#include "tests/tui/lines_text.h"

namespace raw::tui {
namespace {

// The style of the first span whose text contains `needle`.
std::optional<Style> StyleOf(const Lines& lines, const std::string& needle) {
  for (const auto& l : lines) {
    for (const auto& s : l.spans) {
      if (s.text.find(needle) != std::string::npos) return s.style;
    }
  }
  return std::nullopt;
}

const Glyphs& G() { return Glyphs::Unicode(); }

TEST(MarkdownRendererTest, HeadingsAndEmphasis) {
  Lines lines = RenderMarkdown("# Title\n\nSome *soft* and **strong** text.", 40, G());
  EXPECT_EQ(LinesText(lines), "Title\n\nSome soft and strong text.\n");
  EXPECT_EQ(StyleOf(lines, "Title")->role, Role::kAccent);
  EXPECT_TRUE(StyleOf(lines, "Title")->attrs & kAttrBold);
  EXPECT_TRUE(StyleOf(lines, "soft")->attrs & kAttrItalic);
  EXPECT_TRUE(StyleOf(lines, "strong")->attrs & kAttrBold);
}

std::string Repeat(std::string_view piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out.append(piece);
  return out;
}

// Hostile nesting (a model can send it): rendered without overflowing the
// stack, the text still shown, and the indentation bounded.
TEST(MarkdownRendererTest, DeepNestingIsRenderedWithoutOverflowingTheStack) {
  for (const std::string& markdown :
       {std::string(100000, '>') + " deep", Repeat("- ", 50000) + "deep",
        Repeat("> - ", 30000) + "deep", Repeat("*", 60000) + "deep" + Repeat("*", 60000),
        Repeat("![", 30000) + "deep" + Repeat("](u)", 30000)}) {
    Lines lines = RenderMarkdown(markdown, 80, G());
    std::string text = LinesText(lines);
    EXPECT_NE(text.find("deep"), std::string::npos) << markdown.substr(0, 10);
    for (const auto& line : lines) EXPECT_LE(line.Width(), 80) << markdown.substr(0, 10);
  }
}

TEST(MarkdownRendererTest, NestingPastTheLimitIsShownFlat) {
  Lines lines = RenderMarkdown(std::string(40, '>') + " deep\n" + std::string(40, '>') + "\n" +
                                   std::string(40, '>') + " more *text*",
                               200, G());
  std::string text = LinesText(lines);
  EXPECT_NE(text.find("deep"), std::string::npos) << text;
  EXPECT_NE(text.find("more text"), std::string::npos) << text;
  // Shallow nesting keeps its bars.
  EXPECT_EQ(LinesText(RenderMarkdown(">> two", 40, G())), "│ │ two\n");
}

TEST(MarkdownRendererTest, NestedListsAreIndented) {
  Lines lines = RenderMarkdown("- one\n- two\n  - inner\n\n1. first\n2. second", 40, G());
  EXPECT_EQ(LinesText(lines), "• one\n• two\n  ◦ inner\n\n1. first\n2. second\n");
  Lines ascii = RenderMarkdown("- one", 40, Glyphs::Ascii());
  EXPECT_EQ(LinesText(ascii), "* one\n");
}

TEST(MarkdownRendererTest, WrappedListItemsHangUnderTheirText) {
  Lines lines = RenderMarkdown("- a list item that is long enough to wrap", 20, G());
  EXPECT_EQ(LinesText(lines), "• a list item that\n  is long enough to\n  wrap\n");
}

TEST(MarkdownRendererTest, InlineAndFencedCodeUseTheCodeStyle) {
  Lines lines = RenderMarkdown("Call `f()` now.\n\n```cpp\nint x = 1;\n```", 40, G());
  EXPECT_EQ(StyleOf(lines, "f()")->role, Role::kCode);
  EXPECT_EQ(StyleOf(lines, "int x = 1;")->role, Role::kCode);
  EXPECT_EQ(StyleOf(lines, "cpp")->role, Role::kDim);  // the language label
  EXPECT_EQ(LinesText(lines), "Call f() now.\n\n▎ cpp\n▎ int x = 1;\n");
}

TEST(MarkdownRendererTest, AnUnclosedFenceWhileStreamingIsStillCode) {
  Lines lines = RenderMarkdown("```\nfor (;;) {", 40, G());
  EXPECT_EQ(StyleOf(lines, "for (;;) {")->role, Role::kCode);
}

TEST(MarkdownRendererTest, TablesGetBordersAndAlignment) {
  Lines lines = RenderMarkdown("| name | n |\n|------|--:|\n| a | 1 |\n| bb | 22 |", 40, G());
  EXPECT_EQ(LinesText(lines),
            "│ name │  n │\n"
            "├──────┼────┤\n"
            "│ a    │  1 │\n"
            "│ bb   │ 22 │\n");
  EXPECT_TRUE(StyleOf(lines, "name")->attrs & kAttrBold);
}

TEST(MarkdownRendererTest, WideTablesShrinkToTheWidth) {
  Lines lines = RenderMarkdown(
      "| a | b |\n|---|---|\n| a very long cell that cannot fit | x |", 24, G());
  for (const auto& l : lines) EXPECT_LE(l.Width(), 24) << l.PlainText();
}

TEST(MarkdownRendererTest, LinksShowTheirTarget) {
  Lines lines = RenderMarkdown("See [the docs](https://example.com/docs).", 60, G());
  EXPECT_EQ(LinesText(lines), "See the docs (https://example.com/docs).\n");
  EXPECT_EQ(StyleOf(lines, "the docs")->role, Role::kLink);
  Lines autolink = RenderMarkdown("<https://example.com>", 60, G());
  EXPECT_EQ(LinesText(autolink), "https://example.com\n");
}

// FitColumnWidths shrinks the widest columns to one limit as shrinking the
// widest by one column at a time would, in one pass: a table of 2000
// columns of 100-column cells costs 2000 steps, not 2000 * 97.
TEST(MarkdownRendererTest, ColumnWidthsAreFittedInOnePass) {
  EXPECT_EQ(FitColumnWidths({10, 5}, 40), (std::vector<int>{10, 5}));
  EXPECT_EQ(FitColumnWidths({50, 30, 5}, 40), (std::vector<int>{17, 18, 5}));
  EXPECT_EQ(FitColumnWidths({30, 50, 5}, 40), (std::vector<int>{17, 18, 5}));
  EXPECT_EQ(FitColumnWidths({20, 20, 20, 2}, 32), (std::vector<int>{10, 10, 10, 2}));
  EXPECT_EQ(FitColumnWidths({9, 9, 1}, 5), (std::vector<int>{3, 3, 1}));  // never below 3
  int steps = 0;
  std::vector<int> wide = FitColumnWidths(std::vector<int>(2000, 100), 6500, &steps);
  EXPECT_EQ(wide.front(), 3);
  EXPECT_EQ(wide.back(), 4);
  EXPECT_EQ(std::accumulate(wide.begin(), wide.end(), 0), 6500);
  EXPECT_LE(steps, 2000);
  // Through the renderer: every row fits, every cell is shown.
  std::string table = "| a | b | c |\n|---|---|---|\n| " + std::string(300, 'x') + " | " +
                      std::string(200, 'y') + " | z |\n";
  Lines lines = RenderMarkdown(table, 60, G());
  for (const auto& l : lines) EXPECT_LE(l.Width(), 60) << l.PlainText();
  EXPECT_NE(LinesText(lines).find("z"), std::string::npos);
}

// A bare URL is text, as the autolink extension is not used (it takes time
// quadratic in "_www." repeated); the URL is shown all the same.
TEST(MarkdownRendererTest, BareUrlsStayText) {
  Lines lines = RenderMarkdown("See www.example.com and https://example.com/a_b.", 80, G());
  EXPECT_EQ(LinesText(lines), "See www.example.com and https://example.com/a_b.\n");
  EXPECT_EQ(StyleOf(lines, "www.example.com")->role, Role::kDefault);
  EXPECT_EQ(StyleOf(lines, "https://example.com")->role, Role::kDefault);
  std::string hostile = Repeat("_www.", 6000);
  ASSERT_LE(hostile.size(), kMarkdownBudgetBytes);
  EXPECT_EQ(LinesText(RenderMarkdown(hostile, 100000, G())), hostile + "\n");
}

// Over the budget, a text is not parsed: its lines are shown as they are,
// wrapped and sanitized, and its fenced code blocks in the code style.
TEST(MarkdownRendererTest, TextOverTheBudgetIsShownAsPlainLines) {
  std::string paragraph = "Some **bold** words\n";
  std::string under = "# Title\n\n" + paragraph;
  EXPECT_EQ(LinesText(RenderMarkdown(under, 40, G())), "Title\n\nSome bold words\n");
  std::string over = "# Title\n\n```py\nprint(1)\n```\n\x1b[2J " +
                     Repeat(paragraph, static_cast<int>(kMarkdownBudgetBytes / paragraph.size()));
  ASSERT_GT(over.size(), kMarkdownBudgetBytes);
  Lines lines = RenderMarkdown(over, 40, G());
  std::string text = LinesText(lines);
  EXPECT_EQ(text.rfind("# Title\n\n\u258e py\n\u258e print(1)\n\n\uFFFD[2J Some **bold** words\n"
                       "Some **bold** words\n",
                       0),
            0u)
      << text.substr(0, 200);
  EXPECT_EQ(StyleOf(lines, "print(1)")->role, Role::kCode);
  EXPECT_EQ(StyleOf(lines, "# Title")->role, Role::kDefault);
  for (const auto& l : lines) EXPECT_LE(l.Width(), 40);
  // A line longer than a piece is shown in pieces.
  Lines long_line = RenderMarkdown(std::string(kMarkdownBudgetBytes + 10, 'x'), 100000, G());
  EXPECT_EQ(long_line.size(), kMarkdownBudgetBytes / kPlainPieceBytes + 1);
}

TEST(MarkdownRendererTest, QuotesRulesAndStrikethrough) {
  Lines lines = RenderMarkdown("> quoted\n\n---\n\n~~gone~~", 10, G());
  EXPECT_EQ(LinesText(lines), "│ quoted\n\n──────────\n\ngone\n");
  EXPECT_TRUE(StyleOf(lines, "gone")->attrs & kAttrStrike);
}

TEST(MarkdownRendererTest, EveryLineFitsTheWidthAndEscapesAreNeutralized) {
  Lines lines = RenderMarkdown(
      "# A heading that is rather long\n\nText with 日本語 and 😀 emoji "
      "\x1b[2J and a `long_inline_code_identifier_here` too.\n\n"
      "```\nsome code line that is much longer than the width\n```",
      20, G());
  for (const auto& l : lines) {
    EXPECT_LE(l.Width(), 20) << l.PlainText();
    EXPECT_EQ(l.PlainText().find('\x1b'), std::string::npos);
  }
}

}  // namespace
}  // namespace raw::tui
