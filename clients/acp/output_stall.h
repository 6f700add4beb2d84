// OutputStallRule: when a connection's output queue means its client has
// stopped reading, the same rule on stdio and on the WebSocket.
//
// A queue past the soft limit alone does not mean that: `session/load`
// replays a whole session at once, and a client that reads steadily, only
// more slowly than the burst comes, has a long queue for a while. So the
// client counts as stalled only when the queue is over the soft limit AND
// the writer has written nothing for `stall_window` (measured from its
// last write, or from when output began to wait, whichever is later). The
// hard limit bounds memory whatever the writer's progress: past it the
// connection is closed at once.
//
// The rule is evaluated when output is queued: a queue that does not grow
// is not a threat to memory, and a stalled client's connection closes at
// the next output sent to it.
//
// Header-only: both raw_acp and raw_acp_ws (ws_listener.cc, a library of
// its own) use it. Not thread-safe: its owner's lock guards it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace raw::acp {

// The soft limit: 64 MiB, or twice the message cap when that is larger (so
// that the largest message always fits).
inline constexpr size_t OutputQueueLimit(size_t max_message_bytes) {
  constexpr size_t kMinimum = size_t{64} << 20;
  return max_message_bytes > kMinimum / 2 ? 2 * max_message_bytes : kMinimum;
}

// The hard limit: 16 times the soft one (1 GiB by default). Room for the
// replay of a very long session to a client that reads it, while a client
// that reads too slowly to ever catch up still cannot make raw-acp hold
// more than this for it.
inline constexpr size_t OutputHardLimit(size_t max_message_bytes) {
  return 16 * OutputQueueLimit(max_message_bytes);
}

// The defaults: soft limit OutputQueueLimit (transport.h), hard limit
// OutputHardLimit, a 10 s window, absl::Now.
struct OutputLimits {
  size_t soft_bytes = 0;  // 0: OutputQueueLimit(max message)
  size_t hard_bytes = 0;  // 0: OutputHardLimit(max message)
  absl::Duration stall_window = absl::Seconds(10);
  std::function<absl::Time()> clock;  // null: absl::Now (tests inject one)
};

class OutputStallRule {
 public:
  enum class Verdict { kKeep, kStalled, kOverHardLimit };

  // Zero limits take the defaults for `max_message_bytes`.
  OutputStallRule(OutputLimits limits, size_t max_message_bytes) : limits_(std::move(limits)) {
    if (limits_.soft_bytes == 0) limits_.soft_bytes = OutputQueueLimit(max_message_bytes);
    if (limits_.hard_bytes == 0) limits_.hard_bytes = OutputHardLimit(max_message_bytes);
    if (limits_.hard_bytes < limits_.soft_bytes) limits_.hard_bytes = limits_.soft_bytes;
    if (!limits_.clock) limits_.clock = [] { return absl::Now(); };
    last_progress_ = Now();
  }

  absl::Time Now() const { return limits_.clock(); }

  // The writer wrote some bytes, or output began to wait after none did:
  // the stall window starts again.
  void Progress() { last_progress_ = Now(); }

  // Whether a queue of `queued_bytes` (after the message being queued)
  // may be kept.
  Verdict Check(size_t queued_bytes) const {
    if (queued_bytes > limits_.hard_bytes) return Verdict::kOverHardLimit;
    if (queued_bytes > limits_.soft_bytes && Now() - last_progress_ >= limits_.stall_window) {
      return Verdict::kStalled;
    }
    return Verdict::kKeep;
  }

  // The line logged when the connection is closed for `verdict`.
  std::string Describe(Verdict verdict) const {
    if (verdict == Verdict::kOverHardLimit) {
      return absl::StrCat("the client has left more than ", limits_.hard_bytes,
                          " bytes of raw-acp's output unread; closing the connection");
    }
    return absl::StrCat("the client has left more than ", limits_.soft_bytes,
                        " bytes of raw-acp's output unread and read nothing for ",
                        absl::FormatDuration(limits_.stall_window), "; closing the connection");
  }

  const OutputLimits& limits() const { return limits_; }

 private:
  OutputLimits limits_;
  absl::Time last_progress_ = absl::InfinitePast();
};

}  // namespace raw::acp
