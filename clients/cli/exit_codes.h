// Exit codes of the `raw` command line (documented in docs/cli.md).
#pragma once

#include "absl/status/status.h"

namespace raw::cli {

inline constexpr int kExitOk = 0;
// A turn failed, the daemon could not be reached, or another runtime error.
inline constexpr int kExitError = 1;
// Bad arguments, or the daemon refused the request as invalid (unknown
// agent or session, bad directory, invalid config, a turn already running).
inline constexpr int kExitUsage = 2;
// `raw run`: the turn stopped at max_steps. `raw daemon status|stop`: no
// daemon is running.
inline constexpr int kExitMaxSteps = 3;
inline constexpr int kExitNotRunning = 3;
// `raw run`: the session is held by another writer (another client holds
// its write lease).
inline constexpr int kExitHeld = 4;
// The turn was cancelled (Ctrl-C), as a shell reports SIGINT.
inline constexpr int kExitCancelled = 130;

// kExitUsage for statuses that mean "the request was refused as given",
// kExitError for everything else.
inline int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kPermissionDenied:
      return kExitUsage;
    default:
      return kExitError;
  }
}

}  // namespace raw::cli
