// The ACP stopReason that answers a session/prompt, from how the Raw turn
// ended.
//
//   completed                      end_turn; max_tokens when the turn's
//                                  last answer was cut at the model's
//                                  output limit, refusal when the
//                                  provider's content filter stopped it
//                                  (both told by the daemon's warning
//                                  notice in the turn)
//   max_steps                      max_turn_requests
//   cancelled                      cancelled
//   error, after session/cancel    cancelled (a cancelled prompt never
//                                  answers with an error)
//   error                          an error status with the turn's end in
//                                  words (clients/present's TurnEndText)
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

absl::StatusOr<std::string> StopReason(const v1::TurnEnded& ended,
                                       const std::vector<v1::Notice>& turn_notices,
                                       bool cancel_requested);

}  // namespace raw::acp
