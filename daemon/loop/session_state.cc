#include "daemon/loop/session_state.h"

#include <algorithm>

namespace raw::loop {

void SessionState::RecordTurnTimings(std::vector<StepTiming> steps) {
  absl::MutexLock lock(&mu_);
  for (const StepTiming& step : steps) {
    const size_t slot = static_cast<size_t>(steps_timed_ % kOverheadSamples);
    if (slot < totals_.size()) {
      totals_[slot] = step.total_us();
    } else {
      totals_.push_back(step.total_us());
    }
    ++steps_timed_;
  }
  last_turn_ = std::move(steps);
}

OverheadSummary SessionState::overhead() const {
  OverheadSummary summary;
  std::vector<int64_t> totals;
  {
    absl::MutexLock lock(&mu_);
    summary.steps = steps_timed_;
    summary.last_turn = last_turn_;
    totals = totals_;
  }
  if (totals.empty()) return summary;
  // Nearest rank: the smallest value with at least p of the samples at or
  // below it.
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(p * static_cast<double>(totals.size()) + 0.999999);
    k = std::clamp<size_t>(k, 1, totals.size()) - 1;
    std::nth_element(totals.begin(), totals.begin() + static_cast<ptrdiff_t>(k), totals.end());
    return totals[k];
  };
  summary.p50_us = rank(0.5);
  summary.p99_us = rank(0.99);
  return summary;
}

}  // namespace raw::loop
