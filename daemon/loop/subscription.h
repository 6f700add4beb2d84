// Subscription: one subscriber's ordered view of a session's events.
//
// Yields every event with seq > after_seq exactly once, in seq order: first
// the stored events (read from the store page by page, so a long history
// never sits in memory), together with the live-only events of the step in
// progress, then live events as they are published. No gap, no duplicate.
//
// Live events wait in a bounded queue. If the consumer falls behind and the
// queue fills, the queued events are dropped and the subscription goes back
// to reading the store from the last event it delivered; it first yields a
// Resync event (seq = 0, not part of the session's numbering). Durable events
// (approvals, results, turn ends) are therefore never lost; only deltas of
// the lagging period are.
//
// Thread-safety: TryNext and SetWakeup are called by one consumer thread at
// a time; publishing happens on the session's threads. The wakeup callback
// runs on the publishing thread and must not block.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "daemon/events/session_event.h"

namespace raw::loop {

class Subscription {
 public:
  virtual ~Subscription() = default;

  // The next event, or nullopt when none is ready (then the wakeup fires
  // once when one becomes ready). An error (for example an unreadable store)
  // ends the subscription.
  virtual absl::StatusOr<std::optional<events::SessionEvent>> TryNext() = 0;

  // Installs the callback for "an event became ready after TryNext returned
  // nullopt". Replaces any previous one.
  virtual void SetWakeup(std::function<void()> wakeup) = 0;

  // Stops delivery; safe to call from any thread, more than once. Also done
  // by the destructor.
  virtual void Close() = 0;
};

}  // namespace raw::loop
