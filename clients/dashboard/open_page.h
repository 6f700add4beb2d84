// What `raw-dashboard --open` gives the browser: not the tokened address,
// whose command line (xdg-open's, and the browser's when it starts) any
// local user can read in /proc, but a file that sends the browser on to it.
// The file is in the private runtime directory ($XDG_RUNTIME_DIR/raw, else
// /tmp/raw-$UID: mode 0700, the user's own), mode 0600, and is removed when
// the gateway exits.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "common/paths.h"

namespace raw::dashboard {

// The private runtime directory of `env` (the directory of the default
// daemon socket, whatever RAW_SOCKET says).
std::string OpenPageDir(const EnvLookup& env);

// Writes `dir`/dashboard-PORT.html (creating `dir` as a private directory):
// an HTML page that refreshes to `url` at once and links to it. Returns its
// path.
absl::StatusOr<std::string> WriteOpenPage(const std::string& dir, uint16_t port,
                                          const std::string& url);

}  // namespace raw::dashboard
