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

class SystemClock : public Clock {
 public:
  int64_t NowUnixMs() const override;
};

}  // namespace raw
