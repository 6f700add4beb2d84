// The string fields of ACP requests that raw-acp passes on to rawd, read
// and checked before a handler waits on rawd. A handler takes these small
// values out of `params` and never keeps `params` itself across a call to
// rawd: a request padded with fields raw-acp does not read then costs
// nothing once it has been handled, however many wait.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::acp {

// The longest `cwd` taken: PATH_MAX, with its NUL, on Linux.
inline constexpr size_t kMaxCwdBytes = 4096;
// The longest session id, list cursor or config option id or value taken
// (rawd's own are far shorter).
inline constexpr size_t kMaxTokenBytes = 1024;

// params[key] when it is a string, else "".
std::string StringParam(const Json& params, const char* key);

// params[key] when it is a string ("" when absent or of another type);
// INVALID_ARGUMENT naming `key` and the limit when it is longer than
// `max_bytes`.
absl::StatusOr<std::string> BoundedStringParam(const Json& params, const char* key,
                                               size_t max_bytes);

// params.cwd: for session/new, load and resume (`required`) an absolute
// path; for the session/list filter "" when absent. INVALID_ARGUMENT when
// it is longer than kMaxCwdBytes or holds a C0 control character (NUL,
// newline, ...), which no directory a session is made in can be named
// with: rawd would store and compare it as it came.
absl::StatusOr<std::string> CwdParam(const Json& params, bool required);

}  // namespace raw::acp
