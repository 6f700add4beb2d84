#include "daemon/mcp/log_rate_limiter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::mcp {

LogRateLimiter::LogRateLimiter(std::string what, double burst, double per_second)
    : what_(std::move(what)), burst_(burst), per_second_(per_second), tokens_(burst) {}

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
  tokens_ -= 1;
  return {true, SummaryLocked()};
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
