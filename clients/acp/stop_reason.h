// The ACP stopReason that answers a session/prompt, from the daemon's typed
// stop reason of the turn (TurnEnded.stop_reason):
//
//   END_TURN                       end_turn
//   MAX_TOKENS                     max_tokens
//   REFUSAL                        refusal
//   MAX_STEPS                      max_turn_requests
//   CANCELLED                      cancelled
//   ERROR, after session/cancel    cancelled (a cancelled prompt never
//                                  answers with an error)
//   ERROR                          an error status with the turn's end in
//                                  words (clients/present's TurnEndText)
//
// An event without a stop reason (UNSPECIFIED) is read from its
// TurnEndReason alone. Pure function; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

absl::StatusOr<std::string> StopReason(const v1::TurnEnded& ended, bool cancel_requested);

}  // namespace raw::acp
