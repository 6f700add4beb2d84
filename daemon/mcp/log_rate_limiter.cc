#include "daemon/mcp/log_rate_limiter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::mcp {

LogRateLimiter::LogRateLimiter(std::string what, double burst, double per_second,
                               Clock::duration summary_interval)
    : what_(std::move(what)),
      burst_(burst),
      per_second_(per_second),
      summary_interval_(summary_interval),
      tokens_(burst) {}

LogRateLimiter::Verdict LogRateLimiter::Admit(Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  if (started_ && now > last_) {
    double seconds = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + seconds * per_second_);
  }
  if (!started_ || now > last_) last_ = now;
  started_ = true;
  if (tokens_ < 1) {
    ++dropped_;
    return {};
  }
  Verdict verdict;
  if (dropped_ > 0 && (!summarized_ || now - last_summary_ >= summary_interval_)) {
    // The summary is a line of the log too: it spends this token, and the
    // line gets one only if another is left.
    tokens_ -= 1;
    summarized_ = true;
    last_summary_ = now;
    verdict.summary = SummaryLocked();
    if (tokens_ < 1) {
      ++dropped_;
      return verdict;
    }
  }
  tokens_ -= 1;
  verdict.log = true;
  return verdict;
}

std::string LogRateLimiter::TakeSummary() {
  absl::MutexLock lock(&mu_);
  return SummaryLocked();
}

std::string LogRateLimiter::SummaryLocked() {
  if (dropped_ == 0) return "";
  std::string summary = absl::StrCat(dropped_, " ", what_, " suppressed (more than ",
                                     per_second_, " a second)");
  dropped_ = 0;
  return summary;
}

}  // namespace raw::mcp
