#include "clients/tui/markdown_stream.h"

#include <string>
#include <vector>

#include "clients/tui/markdown_plain.h"
#include "clients/tui/markdown_renderer.h"
#include "gtest/gtest.h"
#include "tests/tui/lines_text.h"

namespace raw::tui {
namespace {

constexpr char kAnswer[] =
    "## Findings\n\nThe parser fails on **nested** lists.\n\n```cpp\nint f() {\n\n  return 1;\n}\n"
    "```\n\n- keep the indent\n- add a test\n\n  with a second paragraph\n\n1. first\n2. second\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.\n";

TEST(MarkdownStreamTest, GrowingTextRendersLikeTheWholeText) {
  const std::string answer(kAnswer);
  MarkdownStream stream;
  for (size_t n = 1; n <= answer.size(); n += 7) {
    std::string prefix = answer.substr(0, n);
    EXPECT_EQ(LinesText(stream.Render(prefix, 40, Glyphs::Unicode())),
              LinesText(RenderMarkdown(prefix, 40, Glyphs::Unicode())))
        << "after " << n << " bytes";
  }
  EXPECT_EQ(LinesText(stream.Render(answer, 40, Glyphs::Unicode())),
            LinesText(RenderMarkdown(answer, 40, Glyphs::Unicode())));
}

TEST(MarkdownStreamTest, ABlankLineInsideAFenceDoesNotEndAChunk) {
  MarkdownStream stream;
  std::string text = "```\na\n\nb\n";
  stream.Render(text, 40, Glyphs::Unicode());
  Lines lines = stream.Render(text + "c\n```\n", 40, Glyphs::Unicode());
  EXPECT_EQ(LinesText(lines), "▎ a\n▎ \n▎ b\n▎ c\n");
}

TEST(MarkdownStreamTest, ANewWidthOrADifferentTextStartsOver) {
  MarkdownStream stream;
  stream.Render("one\n\ntwo\n\nthree", 40, Glyphs::Unicode());
  EXPECT_EQ(LinesText(stream.Render("alpha beta\n\nfour", 40, Glyphs::Unicode())),
            "alpha beta\n\nfour\n");
  EXPECT_EQ(LinesText(stream.Render("alpha beta\n\nfour", 8, Glyphs::Unicode())),
            "alpha\nbeta\n\nfour\n");
}

// Texts that end in, or pass through, a top-level fenced code block, with
// lines that close it and lines that only look as if they did.
const char* const kCodeTexts[] = {
    "Here it is:\n\n```cpp\nint main() {\n\n  return 0;\n}\n```\n\nDone.\n",
    "Right after a paragraph:\n```\na\n  b\n\tc\n```python\n``` x\n    ```\n~~~\n"
    "````\nafter the block, no blank line\n",
    "  ~~~~ text\n  indented fence\n   ~~~\n ~~~~~ \nnext\n\n- item\n",
    "```\r\nwindows\r\nlines\r\n```\r\n\r\ntext\r\n",
    "```\nold mac\rlines\r```\rx\n",
    "```\nwide \xE4\xB8\xAD\xE6\x96\x87 and a long line that wraps at the width of the "
    "terminal many times over, 0123456789 0123456789 0123456789\n\n\n",
    "- a list\n\n  ```\n  in an item\n\n  more\n```\nafter\n",
    "> quoted\n```\ncode after a quote\n",
    "```\nfirst\n```\n```js\nsecond\n```\n",
};

void ExpectStreamedEqualsWhole(const std::string& text, size_t step, int width,
                               const Glyphs& glyphs) {
  MarkdownStream stream;
  for (size_t n = 0; n <= text.size();
       n = n == text.size() ? n + 1 : std::min(n + step, text.size())) {
    std::string prefix = text.substr(0, n);
    const Lines& streamed = stream.Render(prefix, width, glyphs);
    Lines whole = RenderMarkdown(prefix, width, glyphs);
    ASSERT_EQ(LinesText(streamed), LinesText(whole)) << "step " << step << ", " << n << " bytes";
    ASSERT_TRUE(streamed == whole) << "styles differ: step " << step << ", " << n << " bytes";
  }
}

TEST(MarkdownStreamTest, AnOpenCodeBlockStreamedInPiecesRendersLikeTheWholeText) {
  for (const char* text : kCodeTexts) {
    for (size_t step : {1, 2, 3, 7, 16, 64}) {
      ExpectStreamedEqualsWhole(text, step, 30, Glyphs::Unicode());
    }
    ExpectStreamedEqualsWhole(text, 5, 12, Glyphs::Ascii());
  }
  // A long block, cut anywhere.
  std::string big = "Intro:\n\n```cpp\n";
  for (int i = 0; i < 120; ++i)
    big += "  x[" + std::to_string(i) + "] = y * " + std::string(i % 50, 'z') + ";\n";
  big += "```\nand after it.\n";
  for (size_t step : {7, 37, 101}) ExpectStreamedEqualsWhole(big, step, 40, Glyphs::Unicode());
}

std::string Repeated(std::string_view piece, size_t bytes) {
  std::string out;
  while (out.size() < bytes) out.append(piece);
  return out;
}

// A chunk over the budget (no blank line for a long way) streamed in
// pieces renders as the whole text does: as plain text, its code blocks as
// code. (The texts are made so that the chunks under the budget read the
// same parsed as plain, so that the whole text over the budget compares.)
TEST(MarkdownStreamTest, AChunkOverTheBudgetStreamsAsPlainText) {
  const size_t over = kMarkdownBudgetBytes + 3 * kPlainPieceBytes;
  std::string code =
      "Intro x\n\n```py\n" + Repeated("  print('\xC3\xA9t\xC3\xA9')\n", 2000) + "```\n\nafter\n\n";
  for (const std::string& text :
       {Repeated("word *em* `c` \xC3\xA9\n", over), Repeated("_www.", over),
        Repeated("\xC3\xA9", over) + "\nnext line\n", Repeated(code, over)}) {
    for (size_t step : {2003, 4099}) ExpectStreamedEqualsWhole(text, step, 50, Glyphs::Unicode());
  }
}

// However long a chunk grows, no call renders much more than the budget:
// the growing chunk is parsed while it is under it, and then its pieces
// are rendered once each, the last one again while it grows.
TEST(MarkdownStreamTest, AGrowingChunkIsNotRenderedWholeEachTime) {
  for (const std::string& unit : {std::string("_www."), std::string("_www.\n")}) {
    MarkdownStream stream;
    std::string text;
    const std::string piece = Repeated(unit, 1000);
    for (int i = 0; i < 100; ++i) {
      text += piece;
      size_t before = stream.rendered_bytes();
      stream.RenderAppended(text, 80, Glyphs::Unicode());
      ASSERT_LE(stream.rendered_bytes() - before,
                kMarkdownBudgetBytes + piece.size() + 2 * kPlainPieceBytes)
          << "at " << text.size() << " bytes";
      if (text.size() > 2 * kMarkdownBudgetBytes) {
        ASSERT_LE(stream.rendered_bytes() - before, piece.size() + 2 * kPlainPieceBytes)
            << "at " << text.size() << " bytes";
      }
    }
    EXPECT_TRUE(stream.lines() == RenderMarkdown(text, 80, Glyphs::Unicode()));
  }
}

TEST(MarkdownStreamTest, AGrowingCodeBlockRendersOnlyWhatWasAppended) {
  const std::string line = "  total += weights[i] * inputs[i];\n";  // 36 bytes
  const std::string head = "The kernel:\n\n```cpp\n";
  std::string text = head;
  MarkdownStream stream;
  stream.Render(text, 80, Glyphs::Unicode());
  size_t appended = 0;
  for (int i = 0; i < 3000; ++i) {
    // Pieces that cut lines: 16 bytes at a time.
    std::string piece = (line + line).substr(static_cast<size_t>(i % 4) * 16 % line.size(), 16);
    text += piece;
    appended += piece.size();
    size_t before = stream.rendered_bytes();
    stream.Render(text, 80, Glyphs::Unicode());
    if (i < 4) continue;  // the block is found once its first line is complete
    // The new complete lines and the unfinished one, each with the fence.
    ASSERT_LE(stream.rendered_bytes() - before, 2 * (line.size() + head.size()) + piece.size())
        << "at delta " << i << ", block of " << text.size() << " bytes";
  }
  EXPECT_EQ(LinesText(stream.lines()), LinesText(RenderMarkdown(text, 80, Glyphs::Unicode())));
  // A closing line ends the block, and what follows is rendered on its own.
  text += "\n```\nThat is all.\n";
  size_t before = stream.rendered_bytes();
  const Lines& lines = stream.Render(text, 80, Glyphs::Unicode());
  EXPECT_LT(stream.rendered_bytes() - before, 200u);
  EXPECT_TRUE(lines == RenderMarkdown(text, 80, Glyphs::Unicode()));
  before = stream.rendered_bytes();
  stream.Render(text + "More words.", 80, Glyphs::Unicode());
  EXPECT_LT(stream.rendered_bytes() - before, 200u);
}

}  // namespace
}  // namespace raw::tui
