#include "daemon/tools/builtin/unified_diff.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::tools::builtin {
namespace {

std::string Lines(int from, int to) {
  std::string out;
  for (int i = from; i <= to; ++i) absl::StrAppend(&out, "line ", i, "\n");
  return out;
}

TEST(UnifiedDiffTest, EqualTextsHaveNoDiff) {
  EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "f", "f"), "");
  EXPECT_EQ(UnifiedDiff("", "", "f", "f"), "");
}

TEST(UnifiedDiffTest, OneChangedLineWithThreeLinesOfContext) {
  std::string before = Lines(1, 10);
  std::string after = before;
  after.replace(after.find("line 5\n"), 7, "line five\n");
  EXPECT_EQ(UnifiedDiff(before, after, "a.txt", "a.txt"),
            "--- a.txt\n"
            "+++ a.txt\n"
            "@@ -2,7 +2,7 @@\n"
            " line 2\n"
            " line 3\n"
            " line 4\n"
            "-line 5\n"
            "+line five\n"
            " line 6\n"
            " line 7\n"
            " line 8\n");
}

TEST(UnifiedDiffTest, ChangesNearEachOtherShareAHunkAndFarOnesDoNot) {
  std::string before = Lines(1, 30);
  std::string after = before;
  after.replace(after.find("line 3\n"), 7, "THREE\n");
  after.replace(after.find("line 8\n"), 7, "EIGHT\n");    // 4 lines apart: same hunk
  after.replace(after.find("line 25\n"), 8, "TWENTY-FIVE\n");  // far: its own hunk
  EXPECT_EQ(UnifiedDiff(before, after, "old", "new"),
            "--- old\n"
            "+++ new\n"
            "@@ -1,11 +1,11 @@\n"
            " line 1\n"
            " line 2\n"
            "-line 3\n"
            "+THREE\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            " line 7\n"
            "-line 8\n"
            "+EIGHT\n"
            " line 9\n"
            " line 10\n"
            " line 11\n"
            "@@ -22,7 +22,7 @@\n"
            " line 22\n"
            " line 23\n"
            " line 24\n"
            "-line 25\n"
            "+TWENTY-FIVE\n"
            " line 26\n"
            " line 27\n"
            " line 28\n");
}

TEST(UnifiedDiffTest, InsertionsAndDeletionsCountLinesLikeDiff) {
  // Lines added at the top of a file: the old range is empty ("-0,0").
  EXPECT_EQ(UnifiedDiff("", "a\nb\n", "f", "f"), "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  EXPECT_EQ(UnifiedDiff("a\nb\n", "", "f", "f"), "--- f\n+++ f\n@@ -1,2 +0,0 @@\n-a\n-b\n");
  // One inserted line in the middle; counts of 1 are omitted.
  EXPECT_EQ(UnifiedDiff("a\nc\n", "a\nb\nc\n", "f", "f"),
            "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n+b\n c\n");
  EXPECT_EQ(UnifiedDiff("x\n", "y\n", "f", "f"), "--- f\n+++ f\n@@ -1 +1 @@\n-x\n+y\n");
}

TEST(UnifiedDiffTest, MarksAMissingNewlineAtEndOfFile) {
  EXPECT_EQ(UnifiedDiff("a\nb", "a\nb\n", "f", "f"),
            "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  EXPECT_EQ(UnifiedDiff("a\n", "a\nz", "f", "f"),
            "--- f\n+++ f\n@@ -1 +1,2 @@\n a\n+z\n\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, FindsAMinimalScriptForInterleavedEdits) {
  // Myers finds the longest common subsequence: a, c, e stay.
  EXPECT_EQ(UnifiedDiff("a\nb\nc\nd\ne\n", "a\nc\nX\ne\nY\n", "f", "f"),
            "--- f\n+++ f\n@@ -1,5 +1,5 @@\n a\n-b\n c\n-d\n+X\n e\n+Y\n");
}

TEST(UnifiedDiffTest, ABoundedSearchFallsBackToOneReplacedBlock) {
  std::string before = "head\n" + Lines(1, 6) + "tail\n";
  std::string after = "head\n";
  for (int i = 1; i <= 6; ++i) absl::StrAppend(&after, "line ", i, "\n", "new ", i, "\n");
  after += "tail\n";
  DiffOptions bounded;
  bounded.max_edits = 2;
  // The middle differs in 6 places: beyond the bound, so all of it is
  // replaced, and the diff stays correct.
  std::string diff = UnifiedDiff(before, after, "f", "f", bounded);
  // The common head ("head", "line 1") and tail stay; the rest is replaced.
  std::string expected = "--- f\n+++ f\n@@ -1,8 +1,14 @@\n head\n line 1\n";
  for (int i = 2; i <= 6; ++i) absl::StrAppend(&expected, "-line ", i, "\n");
  absl::StrAppend(&expected, "+new 1\n");
  for (int i = 2; i <= 6; ++i) absl::StrAppend(&expected, "+line ", i, "\n+new ", i, "\n");
  expected += " tail\n";
  EXPECT_EQ(diff, expected);
  // Unbounded, only the additions show.
  std::string precise = UnifiedDiff(before, after, "f", "f");
  EXPECT_EQ(precise.find("-line"), std::string::npos);
}

TEST(UnifiedDiffTest, HugeFilesWithOneEditStayCheap) {
  std::string before = Lines(1, 200000);
  std::string after = before;
  after.replace(after.find("line 100000\n"), 12, "changed\n");
  std::string diff = UnifiedDiff(before, after, "big", "big");
  EXPECT_EQ(diff,
            "--- big\n+++ big\n@@ -99997,7 +99997,7 @@\n line 99997\n line 99998\n line 99999\n"
            "-line 100000\n+changed\n line 100001\n line 100002\n line 100003\n");
}

}  // namespace
}  // namespace raw::tools::builtin
