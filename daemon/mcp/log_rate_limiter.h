// LogRateLimiter: keeps what one MCP server sends to the daemon's log (its
// stderr lines, its notifications/message) from flooding the log: a token
// bucket admits `burst` lines at once and `per_second` lines a second after
// that; the lines it drops are counted, and the count is reported once
// logging resumes (or at the end) as one "N lines suppressed" line. That
// summary is a line of the log like any other: it spends a token of the
// same bucket, and comes at most once per summary interval, so a steady
// flood writes `per_second` lines a second in all (summaries included), not
// a summary beside every line let through.
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace raw::mcp {

class LogRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // 200 lines at once, then 20 a second: ample for a server's start-up
  // chatter, a small fraction of the log for a server stuck in a loop.
  static constexpr double kDefaultBurst = 200;
  static constexpr double kDefaultPerSecond = 20;
  // During a flood, one summary a second: it costs one of the 20 lines.
  static constexpr Clock::duration kDefaultSummaryInterval = std::chrono::seconds(1);

  // `what` names the lines in the summary: "stderr lines of mcp server x".
  explicit LogRateLimiter(std::string what, double burst = kDefaultBurst,
                          double per_second = kDefaultPerSecond,
                          Clock::duration summary_interval = kDefaultSummaryInterval);

  struct Verdict {
    bool log = false;  // log this line
    // Non-empty when lines were dropped before this one: log this first
    // ("120 stderr lines of mcp server x suppressed (more than 20 a
    // second)"). It took a token, so the line itself may be dropped (`log`
    // false; it is counted in the next summary).
    std::string summary;
  };
  Verdict Admit(Clock::time_point now = Clock::now());

  // The summary of lines dropped and not yet reported ("" = none); for the
  // end of the stream.
  std::string TakeSummary();

 private:
  std::string SummaryLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string what_;
  const double burst_;
  const double per_second_;
  const Clock::duration summary_interval_;
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  Clock::time_point last_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  // When the last summary was given; unset before the first.
  bool summarized_ ABSL_GUARDED_BY(mu_) = false;
  Clock::time_point last_summary_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::mcp
