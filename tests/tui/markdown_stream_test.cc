#include "clients/tui/markdown_stream.h"

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

}  // namespace
}  // namespace raw::tui
