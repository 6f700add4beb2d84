#include "clients/lib/handover_gate.h"

#include <cmath>

namespace raw::client {

void HandoverGate::Requested(const v1::LeaseHolder& requester, bool turn_running) {
  requester_ = requester;
  if (phase_ != Phase::kNone) return;
  phase_ = turn_running ? Phase::kAfterTurn : Phase::kUntilIdle;
}

bool HandoverGate::KeyPressed(absl::Time now) {
  last_key_ = now;
  if (phase_ != Phase::kCountdown) return false;
  Reset();
  return true;
}

bool HandoverGate::Tick(bool turn_running, absl::Time now) {
  if (phase_ == Phase::kAfterTurn && !turn_running) phase_ = Phase::kUntilIdle;
  if (phase_ == Phase::kUntilIdle) {
    if (turn_running) {
      phase_ = Phase::kAfterTurn;
    } else if (now - last_key_ >= timing_.idle) {
      phase_ = Phase::kCountdown;
      release_at_ = now + timing_.countdown;
    }
  }
  if (phase_ == Phase::kCountdown && turn_running) {
    // A turn began during the countdown (a front end without keys, such as
    // the ACP bridge, starts one from a prompt): the handover waits for its
    // end, as for a request made during a turn, so no turn is cut off.
    phase_ = Phase::kAfterTurn;
    release_at_ = absl::InfinitePast();
    return false;
  }
  if (phase_ == Phase::kCountdown && now >= release_at_) {
    Reset();
    return true;
  }
  return false;
}

void HandoverGate::Reset() {
  phase_ = Phase::kNone;
  requester_.Clear();
  release_at_ = absl::InfinitePast();
}

std::optional<absl::Time> HandoverGate::NextDeadline() const {
  switch (phase_) {
    case Phase::kUntilIdle:
      return last_key_ + timing_.idle;
    case Phase::kCountdown:
      return release_at_;
    default:
      return std::nullopt;
  }
}

int HandoverGate::SecondsLeft(absl::Time now) const {
  if (phase_ != Phase::kCountdown || now >= release_at_) return 0;
  return static_cast<int>(std::ceil(absl::ToDoubleSeconds(release_at_ - now)));
}

}  // namespace raw::client
