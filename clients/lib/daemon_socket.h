// DaemonSocket checks: a client talks only to its own user's daemon.
//
// Before a client connects, CheckDaemonSocket verifies
//  1. the socket's directory with lstat(2): a directory (not a symlink),
//     owned by the user, with no group or other permission bits
//     (CheckPrivateDir in common/paths.h);
//  2. the listener, over a plain AF_UNIX connection: SO_PEERCRED names the
//     user's own uid (a socket bound by another uid is refused with a
//     message that says what to remove); and it answers the HTTP/2 client
//     preface with a SETTINGS frame within `handshake_timeout`, as every
//     gRPC server does at once, so a listener that says nothing or writes
//     something else fails fast with a clear message instead of hanging
//     until a call's deadline.
//
// The gRPC channel then connects to the same path (check, then connect).
// Why that is safe: only the directory's owner (or root) can create, remove
// or rename entries in a directory that is the user's own and mode 0700,
// so nobody else can put another socket there between the check and the
// connect. A channel over the checked descriptor itself
// (grpc::CreateInsecureChannelFromFd) was considered and not used: such a
// "direct" channel has no connectivity state and never reconnects, which
// WaitUntilUnreachable (raw daemon stop) and the terminal client's
// reconnect after a daemon restart depend on.
//
// Stateless; thread-safe.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace raw::client {

// How long a listener has to answer the HTTP/2 preface.
inline constexpr absl::Duration kDefaultHandshakeTimeout = absl::Seconds(2);

// OK when a daemon of this user listens at `socket_path` (absolute).
// kUnavailable when nothing listens there (no socket, connection refused):
// the caller may start one. kPermissionDenied when the directory or the
// listener's owner is not the user's, kFailedPrecondition when the listener
// does not speak gRPC (it does not answer the preface in time, or answers
// with something else); both messages name the socket and say what to do.
absl::Status CheckDaemonSocket(const std::string& socket_path,
                               absl::Duration handshake_timeout = kDefaultHandshakeTimeout);

}  // namespace raw::client
