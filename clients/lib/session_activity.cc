#include "clients/lib/session_activity.h"

namespace raw::client {

bool SessionActivity::Apply(const v1::Event& event) {
  if (event.seq() != 0) {
    if (event.seq() <= last_seq_) return false;
    last_seq_ = event.seq();
  }
  switch (event.payload_case()) {
    case v1::Event::kTurnStarted:
      open_turn_ = event.turn_id();
      break;
    case v1::Event::kTurnEnded:
      if (event.turn_id() == open_turn_) open_turn_.clear();
      if (compacting_ && event.turn_id() == compacting_turn_) compacting_ = false;
      pending_.reset();
      break;
    case v1::Event::kApprovalRequested:
      // Only a request with a call still to decide waits for an answer
      // (the others were decided by rules and hooks).
      for (const v1::ApprovalCall& call : event.approval_requested().calls()) {
        if (call.state() == v1::APPROVAL_STATE_PENDING) {
          pending_ = event.approval_requested();
          break;
        }
      }
      break;
    case v1::Event::kApprovalResolved:
      if (pending_ && pending_->request_id() == event.approval_resolved().request_id()) {
        pending_.reset();
      }
      break;
    case v1::Event::kCompactionStarted:
      compacting_ = true;
      compacting_turn_ = event.turn_id();
      break;
    case v1::Event::kCompactionEnded:
      compacting_ = false;
      break;
    default:
      break;
  }
  return true;
}

void SessionActivity::AbandonTurn() {
  open_turn_.clear();
  compacting_ = false;
  pending_.reset();
}

}  // namespace raw::client
