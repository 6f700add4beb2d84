#include "daemon/raven/normalizer.h"

#include "gtest/gtest.h"

namespace raw::raven {
namespace {

TEST(RavenNormalizerTest, FoldsTypographyCaseAndCompatibilityForms) {
  EXPECT_EQ(Normalize("\u201CIt\u2019s\u201D \u2014 the \uFB01rst\u2026").key,
            "\"it's\" - the first...");
  EXPECT_EQ(Normalize("Stra\u00DFe STRASSE").key, "strasse strasse");
  EXPECT_EQ(Normalize("\uFF21\uFF22\uFF23 \u2460").key, "abc 1");  // fullwidth, circled digit
  EXPECT_EQ(Normalize("1\u20132 and 3\u22124").key, "1-2 and 3-4");
}

TEST(RavenNormalizerTest, DropsSoftHyphensAndZeroWidthCharacters) {
  EXPECT_EQ(Normalize("re\u00ADspon\u00ADsi\u00ADble").key, "responsible");
  EXPECT_EQ(Normalize("zero\u200Bwidth\u200D join\u2060er\uFEFF").key, "zerowidth joiner");
}

TEST(RavenNormalizerTest, CollapsesEveryKindOfWhiteSpace) {
  EXPECT_EQ(Normalize("  a\u00A0\u00A0b\u2009c\n\n\td\u3000e  ").key, "a b c d e");
  EXPECT_EQ(Normalize("").key, "");
  EXPECT_EQ(Normalize(" \u00A0\n").key, "");
}

TEST(RavenNormalizerTest, KeepsPunctuationAndDigitSeparators) {
  EXPECT_NE(Normalize("1,000").key, Normalize("1.000").key);
  EXPECT_NE(Normalize("3.5").key, Normalize("3 5").key);
  EXPECT_NE(Normalize("not").key, Normalize("now").key);
}

TEST(RavenNormalizerTest, OffsetMapPointsBackAtTheInput) {
  std::string input = "Caf\u00E9 \u201Cbar\u201D";
  NormalizedText n = Normalize(input);
  ASSERT_EQ(n.key.size(), n.offsets.size());
  size_t at = n.key.find("bar");
  ASSERT_NE(at, std::string::npos);
  auto [first, last] = n.InputRange(input, at, at + 3);
  EXPECT_EQ(input.substr(first, last - first), "bar");
  // A folded quote maps to the whole original code point.
  size_t quote = n.key.find('"');
  auto [qf, ql] = n.InputRange(input, quote, quote + 1);
  EXPECT_EQ(input.substr(qf, ql - qf), "\u201C");
}

TEST(RavenNormalizerTest, InvalidUtf8ReadsAsReplacementCharacters) {
  NormalizedText n = Normalize(std::string("a\xFF" "b", 3));
  EXPECT_EQ(n.key, "a\uFFFDb");
  EXPECT_EQ(n.key.size(), n.offsets.size());
}

// Superscripts, subscripts and fractions would fold into ordinary digits
// and letters that say something else.
TEST(RavenNormalizerTest, KeepsSuperscriptsSubscriptsAndFractions) {
  EXPECT_NE(Normalize("10\u2076").key, Normalize("106").key);
  EXPECT_NE(Normalize("2\u00BD").key, Normalize("21\u20442").key);
  EXPECT_NE(Normalize("H\u2082O").key, Normalize("H2O").key);
  EXPECT_NE(Normalize("x\u00B2").key, Normalize("x2").key);
  EXPECT_EQ(Normalize("10\u2076 and 2\u00BD").key, "10\u2076 and 2\u00BD");
  // The rest of the compatibility folding stays: ligatures, full-width
  // letters, circled digits.
  EXPECT_EQ(Normalize("\uFB01le \uFF26\uFF29\uFF2C\uFF25 \u2460").key, "file file 1");
}

TEST(RavenNormalizerTest, VersionIsNamed) { EXPECT_STREQ(kNormalizerVersion, "raven-norm/2"); }

}  // namespace
}  // namespace raw::raven
