#include "daemon/mcp/log_rate_limiter.h"

#include <chrono>
#include <cstdint>
#include <string>

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
  // Half a second later one token is back: it goes to the summary of the
  // thousand dropped, and the line waits for the next token.
  LogRateLimiter::Verdict resumed = limiter.Admit(t0 + milliseconds(600));
  EXPECT_FALSE(resumed.log);
  EXPECT_EQ(resumed.summary,
            "1000 stderr lines of mcp server s suppressed (more than 2 a second)");
  EXPECT_FALSE(limiter.Admit(t0 + milliseconds(600)).log);
  EXPECT_EQ(limiter.TakeSummary(),
            "2 stderr lines of mcp server s suppressed (more than 2 a second)");
  EXPECT_EQ(limiter.TakeSummary(), "");
  // After a long quiet spell the bucket is full again, but never above the
  // burst.
  const auto later = t0 + std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Admit(later).log) << i;
  EXPECT_FALSE(limiter.Admit(later).log);
}

// A steady flood (a thousand lines a second for a minute) gets what the
// documentation promises: the burst, then `per_second` lines a second, the
// summaries among them, at most one a second. Every line is either logged or
// counted in a summary.
TEST(LogRateLimiterTest, ASteadyFloodLogsTheStatedRateSummariesIncluded) {
  LogRateLimiter limiter("lines", /*burst=*/200, /*per_second=*/20);
  const auto t0 = LogRateLimiter::Clock::time_point{} + std::chrono::hours(1);
  int64_t logged = 0;
  int64_t summaries = 0;
  int64_t summarized = 0;
  auto count = [&](const std::string& summary) {
    if (summary.empty()) return;
    ++summaries;
    summarized += std::stoll(summary);
    EXPECT_EQ(summary.substr(summary.find(' ')), " lines suppressed (more than 20 a second)");
  };
  constexpr int kSeconds = 60;
  constexpr int kPerSecond = 1000;
  for (int i = 0; i < kSeconds * kPerSecond; ++i) {
    LogRateLimiter::Verdict v = limiter.Admit(t0 + milliseconds(i * 1000 / kPerSecond));
    count(v.summary);
    if (v.log) ++logged;
  }
  count(limiter.TakeSummary());
  EXPECT_EQ(logged + summarized, kSeconds * kPerSecond);
  // The last summary (at the end of the stream) is outside the bucket.
  EXPECT_LE(logged + summaries - 1, 200 + 20 * kSeconds);
  EXPECT_GE(logged + summaries - 1, 200 + 20 * (kSeconds - 1));
  EXPECT_LE(summaries - 1, kSeconds);
  EXPECT_GE(logged, 200 + 19 * (kSeconds - 1)) << "the summaries crowd out the lines";
}

}  // namespace
}  // namespace raw::mcp
