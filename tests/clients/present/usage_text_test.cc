#include "clients/present/usage_text.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

TEST(UsageTextTest, TokensAreEstimates) {
  EXPECT_EQ(FormatTokens(850), "~850");
  EXPECT_EQ(FormatTokens(12345), "~12.3k");
  EXPECT_EQ(FormatTokens(123456), "~123k");
  EXPECT_EQ(FormatTokens(1048576), "~1.05M");
}

TEST(UsageTextTest, ContextShowsAPercentageOnlyWithAWindow) {
  v1::ContextEstimate estimate;
  estimate.set_tokens(12300);
  EXPECT_EQ(FormatContext(estimate), "~12.3k");
  estimate.set_window_tokens(128000);
  EXPECT_EQ(FormatContext(estimate), "~12.3k (9.6%)");
}

TEST(UsageTextTest, UnreportedCountsAreUnknown) {
  EXPECT_EQ(FormatCount(std::nullopt), "unknown");
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(48200), "48.2k");
  EXPECT_EQ(GroupDigits(1234567), "1,234,567");
  EXPECT_EQ(ShortSessionId("sess_01hx3k7q2m9v"), "01hx3k7q");
}

TEST(UsageTextTest, OverheadReadsOnlyOnceAStepWasTimed) {
  v1::GetStatsResponse stats;
  EXPECT_EQ(FormatOverhead(stats), "");
  stats.mutable_overhead()->set_steps(1);
  stats.mutable_overhead()->set_p50_us(420);
  stats.mutable_overhead()->set_p99_us(420);
  EXPECT_EQ(FormatOverhead(stats), "p50 0.42 ms, p99 0.42 ms over 1 step");
  stats.mutable_overhead()->set_steps(7);
  stats.mutable_overhead()->set_p99_us(2500);
  EXPECT_EQ(FormatOverhead(stats), "p50 0.42 ms, p99 2.50 ms over 7 steps");
}

}  // namespace
}  // namespace raw::present
