// Clock seam. Code that needs "now" takes a Clock& so tests can fix time.
#pragma once

#include <cstdint>

namespace raw {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock milliseconds since the Unix epoch. Thread-safe.
  virtual int64_t NowUnixMs() const = 0;
};

// Monotonic nanoseconds (std::chrono::steady_clock), for durations such
// as the step timeline's (daemon/loop/step_timeline.h). Thread-safe.
int64_t SteadyNowNs();

class SystemClock : public Clock {
 public:
  int64_t NowUnixMs() const override;
};

}  // namespace raw
