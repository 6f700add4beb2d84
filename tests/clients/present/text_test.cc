#include "clients/present/text.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

TEST(PresentTextTest, TruncateCountsCodePoints) {
  EXPECT_EQ(Truncate("hello", 5), "hello");
  EXPECT_EQ(Truncate("hello", 4), "hell...");
  // "é" is two bytes; it is never split.
  EXPECT_EQ(Truncate("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9...");
  EXPECT_EQ(Truncate("", 3), "");
}

TEST(PresentTextTest, FirstLineSkipsBlankLinesAndMarksMore) {
  EXPECT_EQ(FirstLine("\n  \n  error: boom  \n"), "error: boom");
  EXPECT_EQ(FirstLine("one\ntwo"), "one ...");
  EXPECT_EQ(FirstLine("   "), "");
}

TEST(PresentTextTest, OneLineCollapsesWhitespace) {
  EXPECT_EQ(OneLine("  a\n\tb   c \n"), "a b c");
}

TEST(PresentTextTest, Durations) {
  EXPECT_EQ(FormatDurationMs(0), "0 ms");
  EXPECT_EQ(FormatDurationMs(999), "999 ms");
  EXPECT_EQ(FormatDurationMs(2400), "2.4 s");
  EXPECT_EQ(FormatDurationMs(185000), "3 min 5 s");
}

TEST(PresentTextTest, ExpiryIsRelativeToNow) {
  constexpr int64_t kNow = 1714572180000;
  constexpr int64_t kMinute = 60 * 1000;
  EXPECT_EQ(FormatExpiry(0, kNow), "never");
  EXPECT_EQ(FormatExpiry(kNow, kNow), "due");
  EXPECT_EQ(FormatExpiry(kNow - kMinute, kNow), "due");
  EXPECT_EQ(FormatExpiry(kNow + 10 * 1000, kNow), "in 1 min");
  EXPECT_EQ(FormatExpiry(kNow + 40 * kMinute, kNow), "in 40 min");
  EXPECT_EQ(FormatExpiry(kNow + 5 * 60 * kMinute + kMinute, kNow), "in 5 h");
  EXPECT_EQ(FormatExpiry(kNow + 47 * 60 * kMinute, kNow), "in 47 h");
  EXPECT_EQ(FormatExpiry(kNow + 30LL * 24 * 60 * kMinute - kMinute, kNow), "in 29 days");
}

TEST(PresentTextTest, LocalTimeHasAFixedShape) {
  EXPECT_EQ(FormatLocalTime(0), "-");
  std::string t = FormatLocalTime(1714572180000);
  ASSERT_EQ(t.size(), 16u) << t;
  EXPECT_EQ(t.substr(0, 5), "2024-");
  EXPECT_EQ(t[10], ' ');
  EXPECT_EQ(t[13], ':');
}

TEST(ExcerptTest, ShortensLinesAndCountsThem) {
  EXPECT_EQ(Excerpt("a\nb", 4, 10), "a\nb");
  EXPECT_EQ(Excerpt("a\nb\nc", 2, 10), "a\nb\n...");
  EXPECT_EQ(Excerpt("abcdef", 2, 3), "abc...");
  EXPECT_EQ(Excerpt("", 2, 3), "");
}

}  // namespace
}  // namespace raw::present
