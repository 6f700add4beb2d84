// StepTimeline: where one step's time goes inside rawd, for "Raw's own
// overhead per step" (GetStats, `/stats`, `raw run --timings`,
// bench/e2e_bench).
//
// A step is measured in phases, each from one mark to the next:
//   pre     the step's start (the turn's start for the first step, the
//           previous step's results committed otherwise) -> the request
//           handed to the provider: hooks, the context item, the estimate,
//           the compaction check;
//   build   -> the request body built;
//   send    -> its first byte sent (curl's pretransfer time), without the
//           connection's own setup (name resolution, TCP, TLS: the
//           network's time, not Raw's);
//           (the model's time: -> the response's end)
//   commit  the response's end -> the assistant message and its tool-call
//           batch committed (with calls: in the batch's first commit, after
//           the rules' check, tool_batch.h);
//   tools   -> every result committed (0 for a step without calls).
// Time spent outside Raw inside a phase (a tool running, a hook, an
// approval wait, an automatic compaction's summary request) is counted
// apart (Outside) and left out of that phase. The overhead is the sum of
// the phases.
//
// Recording a mark stores one steady-clock reading in a fixed slot: no
// allocation, no lock. Thread-compatible: used by the turn thread (the
// provider fills RequestTimes on the same thread).
#pragma once

#include <array>
#include <cstdint>

#include "common/time.h"
#include "daemon/providers/provider.h"

namespace raw::loop {

// One step's phases, in microseconds.
struct StepTiming {
  int64_t pre_us = 0;
  int64_t build_us = 0;
  int64_t send_us = 0;
  int64_t commit_us = 0;
  int64_t tools_us = 0;
  int64_t total_us() const { return pre_us + build_us + send_us + commit_us + tools_us; }
};

class StepTimeline {
 public:
  enum Mark : int { kStart, kRequest, kResponseEnd, kCommitted, kResultsCommitted, kMarks };

  // Starts a step at `start_ns` (SteadyNowNs()).
  void Begin(int64_t start_ns);
  void Record(Mark mark) { RecordAt(mark, SteadyNowNs()); }
  void RecordAt(Mark mark, int64_t ns) {
    at_[mark] = ns;
    outside_at_[mark] = outside_ns_;
  }
  // Counts `ns` as time outside Raw, in the phase now running.
  void AddOutside(int64_t ns) { outside_ns_ += ns; }
  // What the provider reports of the request (set before kResponseEnd).
  providers::RequestTimes& request_times() { return request_; }

  // Time outside Raw, from construction to destruction.
  class Outside {
   public:
    explicit Outside(StepTimeline* timeline)
        : timeline_(timeline), start_(timeline != nullptr ? SteadyNowNs() : 0) {}
    ~Outside() {
      if (timeline_ != nullptr) timeline_->AddOutside(SteadyNowNs() - start_);
    }
    Outside(const Outside&) = delete;
    Outside& operator=(const Outside&) = delete;

   private:
    StepTimeline* const timeline_;
    const int64_t start_;
  };

  // The phases of the step so far. REQUIRES: kStart, kRequest,
  // kResponseEnd and kCommitted recorded.
  StepTiming Result() const;

 private:
  // Span a -> b less the time outside Raw within it, in microseconds (0
  // when either mark is missing).
  int64_t Phase(Mark a, Mark b) const;

  std::array<int64_t, kMarks> at_{};
  std::array<int64_t, kMarks> outside_at_{};
  int64_t outside_ns_ = 0;
  providers::RequestTimes request_;
};

}  // namespace raw::loop
