// The listening socket that systemd passes to a socket-activated rawd.
//
// systemd's protocol (sd_listen_fds(3)): LISTEN_PID is the pid the sockets
// are meant for, LISTEN_FDS how many there are, starting at descriptor 3,
// and LISTEN_FDNAMES their names, separated by ':'. The variables are
// removed from the environment once read, whatever they say, so that no
// child (a tool command, an MCP server) takes them for its own; the
// descriptors get FD_CLOEXEC for the same reason.
#pragma once

#include <optional>

#include "absl/status/statusor.h"

namespace raw::app {

// The first descriptor of the protocol.
inline constexpr int kListenFdsStart = 3;

// Reads and clears the protocol's variables. std::nullopt when no socket is
// passed to this process (no LISTEN_PID, or it names another process, or
// LISTEN_FDS is 0). More than one socket, or a malformed value, is
// kInvalidArgument saying so: rawd listens on exactly one socket.
absl::StatusOr<std::optional<int>> TakeListenSocket();

}  // namespace raw::app
