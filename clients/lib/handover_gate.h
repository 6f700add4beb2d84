// HandoverGate: when a client that holds a session's write lease gives it
// to another client that asked for it (LeaseHandoverRequested).
//
// The rule, the same for every interactive front end:
//   - a request that comes during a running turn waits for the turn's end,
//     and so does one whose countdown a turn starting interrupts;
//   - then, once the user is idle (no turn running and no key pressed for
//     `idle`), a visible countdown of `countdown` starts;
//   - a key pressed during the countdown keeps the lease: the front end
//     declines the request (DeclineHandover);
//   - at the end of the countdown the front end releases the lease (ends
//     its AcquireLease stream) and follows the session read-only.
// The daemon never takes a lease away: until the holder releases or
// declines, the requester waits.
//
// Pure state with the time passed in, so that front ends drive it from
// their own clock and tests step it exactly. Not thread-safe: one owner
// (the UI thread).
#pragma once

#include <optional>

#include "absl/time/time.h"
#include "raw/v1/session.pb.h"

namespace raw::client {

class HandoverGate {
 public:
  struct Timing {
    absl::Duration idle = absl::Seconds(10);
    absl::Duration countdown = absl::Seconds(10);
  };

  enum class Phase {
    kNone,       // nobody asks for the lease
    kAfterTurn,  // asked during a running turn: waits for its end
    kUntilIdle,  // waits until no key was pressed for `idle`
    kCountdown,  // releases at release_at() unless a key keeps the lease
  };

  explicit HandoverGate(Timing timing) : timing_(timing) {}

  // Another client asks for the lease. A second request while one is
  // pending only updates who asks. Call Tick next: it starts the countdown
  // (or releases, with zero durations).
  void Requested(const v1::LeaseHolder& requester, bool turn_running);

  // The user pressed a key. Returns true when the key keeps the lease (it
  // came during the countdown): the caller declines the request and the
  // key does nothing else. Call it for every key, asked or not: it is how
  // the gate knows when the user last typed.
  bool KeyPressed(absl::Time now);

  // Advances the phases; returns true once, when the lease is to be
  // released now. The gate is then back to kNone.
  bool Tick(bool turn_running, absl::Time now);

  // Forgets the request (the lease was released, declined or lost).
  void Reset();

  Phase phase() const { return phase_; }
  const v1::LeaseHolder& requester() const { return requester_; }
  // When Tick must run next to keep the rule (the idle time's end, the
  // countdown's end); nullopt when only a turn's end moves the gate.
  std::optional<absl::Time> NextDeadline() const;
  // The countdown's end (kCountdown only).
  absl::Time release_at() const { return release_at_; }
  // Whole seconds left in the countdown, rounded up.
  int SecondsLeft(absl::Time now) const;

 private:
  Timing timing_;
  Phase phase_ = Phase::kNone;
  v1::LeaseHolder requester_;
  absl::Time last_key_ = absl::InfinitePast();
  absl::Time release_at_ = absl::InfinitePast();
};

}  // namespace raw::client
