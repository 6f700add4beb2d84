// A connection's request budget for the local servers (local_server.h).
#pragma once

#include <chrono>
#include <cstddef>

namespace raw::web {

// Counts requests in fixed windows: Allow() is false for every request past
// `max` in the current window. Not thread-safe (one connection's coroutine).
class RateLimit {
 public:
  using Clock = std::chrono::steady_clock;

  RateLimit(size_t max, Clock::duration window) : max_(max), window_(window) {}

  bool Allow() {
    Clock::time_point now = Clock::now();
    if (now - start_ >= window_) {
      start_ = now;
      count_ = 0;
    }
    return ++count_ <= max_;
  }

 private:
  const size_t max_;
  const Clock::duration window_;
  Clock::time_point start_ = Clock::now();
  size_t count_ = 0;
};

}  // namespace raw::web
