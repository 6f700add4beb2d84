// LogRateLimiter: keeps what one MCP server sends to the daemon's log (its
// stderr lines, its notifications/message) from flooding the log: a token
// bucket admits `burst` lines at once and `per_second` lines a second after
// that; the lines it drops are counted, and the count is reported once
// logging resumes (or at the end) as one "N lines suppressed" line.
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

  // `what` names the lines in the summary: "stderr lines of mcp server x".
  explicit LogRateLimiter(std::string what, double burst = kDefaultBurst,
                          double per_second = kDefaultPerSecond);

  struct Verdict {
    bool log = false;  // log this line
    // Non-empty when lines were dropped before this one was admitted: log
    // this first ("120 stderr lines of mcp server x suppressed (more than
    // 20 a second)").
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
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  Clock::time_point last_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::mcp
