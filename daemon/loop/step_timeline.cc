#include "daemon/loop/step_timeline.h"

#include <algorithm>

namespace raw::loop {

void StepTimeline::Begin(int64_t start_ns) {
  at_ = {};
  outside_at_ = {};
  outside_ns_ = 0;
  request_ = {};
  RecordAt(kStart, start_ns);
}

int64_t StepTimeline::Phase(Mark a, Mark b) const {
  if (at_[a] == 0 || at_[b] == 0) return 0;
  const int64_t span = (at_[b] - at_[a]) - (outside_at_[b] - outside_at_[a]);
  return std::max<int64_t>(span, 0) / 1000;
}

StepTiming StepTimeline::Result() const {
  StepTiming t;
  t.pre_us = Phase(kStart, kRequest);
  const int64_t built = request_.body_built_ns;
  const int64_t first_byte = request_.first_byte_sent_ns;
  if (built > 0 && at_[kRequest] > 0) t.build_us = std::max<int64_t>(built - at_[kRequest], 0) / 1000;
  if (built > 0 && first_byte > 0) {
    t.send_us = std::max<int64_t>(first_byte - built - request_.network_setup_ns, 0) / 1000;
  }
  t.commit_us = Phase(kResponseEnd, kCommitted);
  t.tools_us = Phase(kCommitted, kResultsCommitted);
  return t;
}

}  // namespace raw::loop
