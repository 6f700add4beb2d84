// Starting `rawd` on behalf of a client (autostart).
//
// FindDaemonBinary decides which executable to run; LaunchDaemon starts it
// fully detached from the client (double fork and setsid: the daemon is
// neither the client's child nor in its session, so closing the terminal or
// the client exiting does not touch it) and waits until it reports that its
// socket is listening.
//
// The readiness handshake is rawd's `--ready-fd N` option: rawd writes the
// single byte 'R' to fd N and closes it once it accepts connections. When it
// cannot start, it closes the fd without writing and exits non-zero with its
// reason on stderr. LaunchDaemon points rawd's stdin and stdout at /dev/null
// and its stderr at a pipe that is read only when the start fails, so the
// error names what rawd printed. Nothing here sleeps or polls on a timer: it
// blocks in poll(2) on the two pipes.
//
// Stateless functions; safe to call from any thread, but the caller must hold
// the autostart lock (see LockFile) so that one daemon starts, not two.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/paths.h"

namespace raw::client {

// Which rawd to start: $RAW_DAEMON when set; else "rawd" in the directory of
// `self_exe` (the running client's executable, so a build or install tree
// uses its own daemon); else "rawd" on $PATH. Fails with a message that says
// where it looked.
absl::StatusOr<std::string> FindDaemonBinary(const EnvLookup& env, const std::string& self_exe);

// The running program's executable (/proc/self/exe), or "" when unknown.
std::string SelfExecutable();

struct DaemonLaunch {
  std::string daemon_path;  // absolute path of the executable
  std::string socket_path;  // passed as --socket
  std::vector<std::string> extra_args;  // appended after --socket and --ready-fd
  absl::Duration ready_timeout = absl::Seconds(30);
};

// Starts rawd and returns once it wrote 'R' to its ready fd. On failure the
// message includes what rawd wrote to stderr (its tail, when long).
absl::Status LaunchDaemon(const DaemonLaunch& launch);

}  // namespace raw::client
