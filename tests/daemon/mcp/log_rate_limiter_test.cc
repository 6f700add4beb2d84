#include "daemon/mcp/log_rate_limiter.h"

#include <chrono>

#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

using std::chrono::milliseconds;

TEST(LogRateLimiterTest, AdmitsABurstThenTheRateAndSummarizesWhatItDropped) {
  LogRateLimiter limiter("stderr lines of mcp server s", /*burst=*/3, /*per_second=*/2);
  const auto t0 = LogRateLimiter::Clock::time_point{} + std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) {
    LogRateLimiter::Verdict v = limiter.Admit(t0);
    EXPECT_TRUE(v.log) << i;
    EXPECT_EQ(v.summary, "");
  }
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(limiter.Admit(t0 + milliseconds(100)).log);
  // Half a second later one token is back: the line is logged after the
  // summary of the thousand dropped.
  LogRateLimiter::Verdict resumed = limiter.Admit(t0 + milliseconds(600));
  EXPECT_TRUE(resumed.log);
  EXPECT_EQ(resumed.summary,
            "1000 stderr lines of mcp server s suppressed (more than 2 a second)");
  EXPECT_FALSE(limiter.Admit(t0 + milliseconds(600)).log);
  EXPECT_EQ(limiter.TakeSummary(),
            "1 stderr lines of mcp server s suppressed (more than 2 a second)");
  EXPECT_EQ(limiter.TakeSummary(), "");
  // After a long quiet spell the bucket is full again, but never above the
  // burst.
  const auto later = t0 + std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Admit(later).log) << i;
  EXPECT_FALSE(limiter.Admit(later).log);
}

}  // namespace
}  // namespace raw::mcp
