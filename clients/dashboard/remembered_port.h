// The port raw-dashboard listens on when no --port is given: the same one
// on every run, remembered per user, because a browser keeps preferences
// and the message history per origin, and the origin includes the port.
// The first run takes a free port and writes it to
// $XDG_STATE_HOME/raw/dashboard-port; later runs listen on it again. When
// it is taken (another gateway runs, say) a run takes a free port and
// leaves the remembered one as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"

namespace raw::dashboard {

// The file that holds the remembered port: `state_dir`/dashboard-port.
std::string RememberedPortPath(const std::string& state_dir);

// The port in the file at `path`; nullopt when there is none, or no valid
// port (1-65535, digits only) in it.
std::optional<uint16_t> ReadRememberedPort(const std::string& path);

// Writes `port` to `path` (creating its directory), replacing the file
// atomically.
absl::Status RememberPort(const std::string& path, uint16_t port);

}  // namespace raw::dashboard
