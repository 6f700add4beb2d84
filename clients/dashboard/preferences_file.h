// The dashboard page's preferences (theme, font size, collapsed panels) as
// the gateway keeps them, so that they follow the user from run to run:
// each run listens on a new port, so the page's origin, and with it the
// browser's local storage, is new each time (docs/dashboard.md). The file,
// $XDG_STATE_HOME/raw/dashboard-preferences.json, holds one JSON object
// with only the members ValidatePreferences allows; nothing else the page
// knows (prompt text, the token) can reach it.
//
// Thread-safe: a read opens the file anew, a write replaces it with
// rename(2), so a reader sees the old object or the new one, never a part.
// Concurrent writes each land whole; the last rename wins.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::dashboard {

// The most bytes a stored object, or a PUT /api/preferences body, may have.
// The largest valid object is under 100 bytes.
inline constexpr size_t kMaxPreferencesBytes = 4096;

// `state_dir`/dashboard-preferences.json.
std::string PreferencesPath(const std::string& state_dir);

// OK when `value` is an object with no members but these, each optional:
//   "theme": "system", "light" or "dark";
//   "fontSize": an integer from 10 to 28;
//   "collapsed": an object with no member but "details", a boolean.
// Otherwise kInvalidArgument naming the first member that is unknown or
// has a value out of its range.
absl::Status ValidatePreferences(const Json& value);

// The object stored at `path`; {} when there is no file. An error that
// says why (it cannot be read, it is not a regular file, it is over
// kMaxPreferencesBytes, not JSON, or not valid preferences) otherwise.
absl::StatusOr<Json> ReadPreferences(const std::string& path);

// Validates `value` and writes it to `path`: the directory is created
// with mode 0700 when missing, the object goes to a new 0600 file beside
// it, renamed over `path`. Nothing is written when `value` is invalid.
absl::Status WritePreferences(const std::string& path, const Json& value);

}  // namespace raw::dashboard
