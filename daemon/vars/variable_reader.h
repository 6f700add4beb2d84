// ReadVariable: reads one variable's value from its source, with no caching
// (VariableStore caches). The three sources (config::VariableSource):
//
//   env      the environment variable, through the EnvLookup given (unset
//            and empty are the same: an error)
//   file     the file's contents, one trailing line break ("\n" or "\r\n")
//            removed; it must be a regular file of at most kMaxValueBytes
//   command  the command's standard output, one trailing line break
//            removed; it runs with the daemon's environment, no stdin and
//            the definition's timeout, and must exit 0
//
// An empty value is an error for every source. Errors start with
// "variable <NAME>: " and name the environment variable, the file or the
// program; they never contain the value or anything the command printed on
// standard output (standard error's last line is shown, as it usually says
// what went wrong).
//
// Thread-safety: any number of calls may run concurrently; `env` must be
// safe to call from the calling thread.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "common/paths.h"
#include "daemon/config/config.h"

namespace raw::vars {

// Largest value read from a file or a command's output (1 MiB).
inline constexpr size_t kMaxValueBytes = 1 << 20;

// A command variable's command runs without the `withheld_env` names in its
// environment (config/withheld_env.h). A cancelled `cancel` (may be null)
// ends the command at once (SIGTERM to its group, SIGKILL after the
// subprocess grace), or keeps it from starting: kCancelled "variable
// <NAME>: command <PROGRAM> was not let finish: <reason>".
absl::StatusOr<std::string> ReadVariable(const config::VariableConfig& definition,
                                         const EnvLookup& env,
                                         const std::set<std::string>& withheld_env = {},
                                         const CancelToken* cancel = nullptr);

}  // namespace raw::vars
