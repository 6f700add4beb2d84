// Prose Layout: the fixtures of the layout rules and the idempotence
// property on generated Markdown.
#include "daemon/raven/prose.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace raw::raven {
namespace {

TEST(ProseLayoutTest, SplitsLatinSentences) {
  EXPECT_EQ(LayoutProse("One sentence. Two sentences! Three?"), "One sentence.\nTwo sentences!\nThree?");
}

TEST(ProseLayoutTest, SplitsCjkWithoutWhitespace) {
  EXPECT_EQ(LayoutProse("第一句。第二句！第三句"), "第一句。\n第二句！\n第三句");
}

TEST(ProseLayoutTest, KeepsAbbreviationsInitialsAndNumbers) {
  EXPECT_EQ(LayoutProse("Smith et al. reported 3.14 in Fig. 2 vs. the control."),
            "Smith et al. reported 3.14 in Fig. 2 vs. the control.");
  EXPECT_EQ(LayoutProse("J. R. R. Tolkien wrote it."), "J. R. R. Tolkien wrote it.");
  EXPECT_EQ(LayoutProse("It ended. then it went on."), "It ended. then it went on.");
}

// A '.' is read back only as far as its word could still be an
// abbreviation: a long run without white space costs linear work.
TEST(ProseLayoutTest, DotsInALongWordAreReadBackLinearly) {
  std::string dotted;
  while (dotted.size() < 20000) dotted += "a.";
  dotted += " Next one.";
  size_t steps = 0;
  std::vector<std::string> sentences = SplitSentences(dotted, steps);
  ASSERT_EQ(sentences.size(), 2u);
  EXPECT_EQ(sentences[1], "Next one.");
  EXPECT_LE(steps, 8 * dotted.size());
  // Digits between the dots are no part of a word's letters, yet are read.
  std::string numbered = "Version ";
  for (int i = 0; i < 5000; ++i) numbered += "1234.";
  steps = 0;
  EXPECT_EQ(SplitSentences(numbered, steps).size(), 1u);
  EXPECT_LE(steps, 8 * numbered.size());
  // The cut keeps what a word is: its letters after digits still count.
  EXPECT_EQ(LayoutProse("Use 12e.g. Then go."), "Use 12e.g. Then go.");
}

TEST(ProseLayoutTest, ClosingQuoteAndMarkerStayWithTheSentence) {
  EXPECT_EQ(LayoutProse("He said \"stop.\"[^1] Then left."), "He said \"stop.\"[^1]\nThen left.");
  EXPECT_EQ(LayoutProse("Shown.[@a] Next."), "Shown.[@a]\nNext.");
}

TEST(ProseLayoutTest, CodeAndLinksAreNotSplit) {
  EXPECT_EQ(LayoutProse("Run `a. B` now. See [Fig. 2](https://x.test/a.b). End."),
            "Run `a. B` now.\nSee [Fig. 2](https://x.test/a.b).\nEnd.");
}

TEST(ProseLayoutTest, ReflowsWrappedProse) {
  EXPECT_EQ(LayoutProse("A wrapped\nline. Next"), "A wrapped line.\nNext");
  EXPECT_EQ(LayoutProse("中文\n继续。"), "中文继续。");
}

TEST(ProseLayoutTest, CopiesStructureVerbatim) {
  std::string doc =
      "---\ntitle: x. Y\n---\n# Heading. Two\n\n```\ncode. Not split\n```\n| a. B | c |\n***\n"
      "[ref]: https://x.test/. Y\n$$\nx. Y\n$$\n<div>a. B</div>";
  EXPECT_EQ(LayoutProse(doc), doc);
}

TEST(ProseLayoutTest, ListAndQuoteContinuations) {
  EXPECT_EQ(LayoutProse("- First one. Second one."), "- First one.\n  Second one.");
  EXPECT_EQ(LayoutProse("10. First. Second."), "10. First.\n    Second.");
  // A sentence that would read back as a list item stays on its line.
  EXPECT_EQ(LayoutProse("Intro. - Not a list."), "Intro. - Not a list.");
  EXPECT_EQ(LayoutProse("> One. Two."), "> One.\n> Two.");
}

// Found by raven_prose_fuzz: a list marker alone on its line took the next
// line's text without a space ("+eet"), which the next layout read as
// paragraph text and joined to the line before.
TEST(ProseLayoutTest, AMarkerAloneKeepsItsItemWhenTextIsJoinedAfterIt) {
  const std::string once = LayoutProse("t?g]ne]n+ee2?2t\n+\neet?(e}n+");
  EXPECT_EQ(once, "t?g]ne]n+ee2?2t\n+ eet?(e}n+");
  EXPECT_EQ(LayoutProse(once), once);
  EXPECT_EQ(LayoutProse("1.\nText. More."), "1. Text.\n   More.");
  EXPECT_EQ(LayoutProse(LayoutProse("1.\nText. More.")), "1. Text.\n   More.");
  EXPECT_EQ(LayoutProse("-"), "-");
}

// Found by raven_prose_fuzz: one pass exposed structure that the next read
// differently. Splitting "2.<U+3000>Te]" left a bare list marker "2." on
// its line; trimming a U+FEFF from in front of '>' in a quote's remainder
// turned it into more quote marks. The layout now repeats until the text
// no longer changes.
TEST(ProseLayoutTest, APassThatExposesStructureIsFollowedUntilNothingChanges) {
  const std::string marker = LayoutProse(std::string("\x00" "2\x00.\xe3\x80\x80Te] \x00\n\x00\n]", 16));
  EXPECT_EQ(LayoutProse(marker), marker);
  EXPECT_EQ(marker, "2. Te]\n\n]");
  const std::string quote = LayoutProse(
      ">>>\xef\xbb\xbf>>>\xef\xbb\xbf>> Text. More.");
  EXPECT_EQ(LayoutProse(quote), quote);
  // The invisible characters go, and every mark around them counts: both
  // sentences stay at the depth of eight (they were once laid out at eight
  // and three, one pass uncovering one level).
  EXPECT_EQ(quote, ">>>>>>>> Text.\n>>>>>>>> More.");
}

TEST(ProseLayoutTest, AQuoteNestedBehindWhiteSpaceAtEveryLevelIsReadInOnePass) {
  // Found by raven_prose_fuzz: each level's tab was trimmed by one pass and
  // its '>' read by the next, so 17 levels outlasted the 16 passes the
  // layout allows itself, and the result was not a fixed point.
  std::string nested;
  for (int i = 0; i < 40; ++i) nested += i % 2 == 0 ? ">\t" : ">\xc2\xa0";  // tab, no-break space
  nested += "Deep text.";
  const std::string once = LayoutProse(nested);
  EXPECT_EQ(LayoutProse(once), once);
  EXPECT_EQ(once, std::string(40, '>') + "Deep text.");
}

TEST(ProseLayoutTest, HardBreaksAndCrlf) {
  EXPECT_EQ(LayoutProse("Line one.  \nLine. Two"), "Line one.  \nLine.\nTwo");
  EXPECT_EQ(LayoutProse("One.\r\nTwo. Three\rFour"), "One.\nTwo.\nThree Four");
}

TEST(ProseLayoutTest, NormalizesToNfcAndRepairsBadUtf8) {
  EXPECT_EQ(LayoutProse("Cafe\xcc\x81."), "Caf\xc3\xa9.");
  EXPECT_EQ(LayoutProse("bad \xff byte."), "bad \xef\xbf\xbd byte.");
}

// Generated Markdown from fragments that exercise every rule.
std::string Generate(std::mt19937& rng) {
  static const std::vector<std::string> kFragments = {
      "Plain sentence.", "Another one!", "Question?", "e.g. lower", "J. Doe", "3.14",
      "中文句子。", "更多", "Cafe\xcc\x81 au lait.", "a\xcc\x88\xcc\x81", "`code. X`", "``a ` b``",
      "[link. X](https://x.test/a.b)", "[@src-1]", "[^1]", "\"quoted.\"", "(paren. X)",
      "\n", "\n\n", "\n- ", "\n1. ", "\n> ", "\n# ", "\n```\n", "\n~~~\n", "\n| a | b |",
      "\n---", "\n***", "\n$$\n", "  \n", "\\\n", "\r\n", "\t", "  ", "<div>", "\n[x]: y",
      "—", "»", "」", "。", "...", "!!", "?\"", "\n===", "   ", "  - ", ">>", "\xff"};
  std::uniform_int_distribution<size_t> pick(0, kFragments.size() - 1);
  std::uniform_int_distribution<int> count(1, 40);
  std::string out;
  int n = count(rng);
  for (int i = 0; i < n; ++i) {
    out += kFragments[pick(rng)];
    if (rng() % 2) out += " ";
  }
  return out;
}

TEST(ProseLayoutPropertyTest, IsIdempotentOnGeneratedMarkdown) {
  std::mt19937 rng(20261202);
  for (int i = 0; i < 5000; ++i) {
    std::string x = Generate(rng);
    std::string once = LayoutProse(x);
    ASSERT_EQ(LayoutProse(once), once) << "input: " << ::testing::PrintToString(x);
  }
}

TEST(ProseLayoutTest, WhiteSpaceThatKeepsALineFromBeingStructureIsKept) {
  // Laid out as a paragraph, "\t```" lost its tab and opened a fence on the
  // next pass, which changed how the lines after it read, one fence per
  // pass: this input (found by raven_prose_fuzz) took more passes than the
  // layout makes.
  const std::string found =
      "-\n\n\t```\n```\n\t```\n```\n\t```\n````\n\t```\n```\n\t```\n```\n"
      "\t```\n```\n````\n```````\n\t```\n```\n\t```\n```\n\t```\n``````\n"
      "\t```\n````\n\t```\n```\n````\r$$\n````\n\t```\n`````\n\t```\n```\n"
      "\t```\n```\n\t```\n````\n\t```\n```\n\t```\n```\n\t```\n```\n````\n"
      "````\n\t```\n```\n\t```\n```\n\t```\n```\n````>\n````\n\t```\n```\r\t>";
  const std::string once = LayoutProse(found);
  EXPECT_EQ(LayoutProse(once), once);
  EXPECT_EQ(LayoutProse("Code:\n\n\t```\nprint(1)"), "Code:\n\n\t```\nprint(1)");
  EXPECT_EQ(LayoutProse("Intro.\n\n\t# Not a heading\nText."),
            "Intro.\n\n\t# Not a heading\nText.");
  EXPECT_EQ(LayoutProse("Intro.\n\n\xC2\xA0- not an item"), "Intro.\n\n\xC2\xA0- not an item");
  // Plain spaces are not dropped, so such a line stays a paragraph.
  EXPECT_EQ(LayoutProse("Intro.\n\n  plain text.  More."), "Intro.\n\n  plain text.\n  More.");
}

}  // namespace
}  // namespace raw::raven
