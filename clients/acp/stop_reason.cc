#include "clients/acp/stop_reason.h"

#include "clients/present/turn_end.h"

namespace raw::acp {
namespace {

v1::StopReason FromTurnEndReason(v1::TurnEndReason reason) {
  switch (reason) {
    case v1::TURN_END_REASON_COMPLETED: return v1::STOP_REASON_END_TURN;
    case v1::TURN_END_REASON_MAX_STEPS: return v1::STOP_REASON_MAX_STEPS;
    case v1::TURN_END_REASON_CANCELLED: return v1::STOP_REASON_CANCELLED;
    default: return v1::STOP_REASON_ERROR;
  }
}

}  // namespace

absl::StatusOr<std::string> StopReason(const v1::TurnEnded& ended, bool cancel_requested) {
  v1::StopReason reason = ended.stop_reason();
  if (reason == v1::STOP_REASON_UNSPECIFIED) reason = FromTurnEndReason(ended.reason());
  switch (reason) {
    case v1::STOP_REASON_END_TURN: return std::string("end_turn");
    case v1::STOP_REASON_MAX_TOKENS: return std::string("max_tokens");
    case v1::STOP_REASON_REFUSAL: return std::string("refusal");
    case v1::STOP_REASON_MAX_STEPS: return std::string("max_turn_requests");
    case v1::STOP_REASON_CANCELLED: return std::string("cancelled");
    default:
      if (cancel_requested) return std::string("cancelled");
      return absl::InternalError(present::TurnEndText(ended));
  }
}

}  // namespace raw::acp
