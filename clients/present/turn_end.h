// How the end of a turn reads, the same on every surface:
//   "turn completed (3 steps)"
//   "turn stopped at the agent's max_steps (6 steps)"
//   "turn cancelled (1 step): interrupted by the user"
//   "turn failed (2 steps): HTTP 500 ..."
// Surfaces add their own frame ("-- " in a printed history, "raw run: the "
// on stderr, a capital letter in the terminal client).
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "raw/v1/event.pb.h"

namespace raw::present {

// How much attention an ending asks for.
enum class Severity { kInfo, kWarning, kError };

std::string TurnEndText(const v1::TurnEnded& ended);

// kInfo for a completed turn, kWarning for cancelled and max_steps, kError
// for a failure.
Severity TurnEndSeverity(const v1::TurnEnded& ended);

// Shown after the text of an assistant message whose stream was
// interrupted: the user saw it, the model will not.
inline constexpr const char* kInterruptedNote =
    "interrupted: this partial answer is kept in the history but is not part of the model's "
    "context";

// `text` with its first letter upper-case (ASCII).
std::string Capitalized(std::string text);

}  // namespace raw::present
