// SpawnInNewSession: the one way Raw starts a child process (hook and
// subprocess commands, the bash tool's shell, MCP stdio servers).
//
// The child is started with posix_spawn, which is safe in a multithreaded
// daemon, into a new session: it leads its own process group (so the whole
// group can be signalled) and has no controlling terminal. Every signal
// disposition and the signal mask are reset to the defaults, so a child
// behaves as it would when started from a shell even though the daemon
// ignores SIGPIPE and blocks its stop signals. Descriptors 3 and up are
// closed in the child, including ones opened without O_CLOEXEC.
//
// Stateless; thread-safe.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw {

struct SpawnRequest {
  std::string program;            // the file executed (a path, not looked up)
  std::vector<std::string> argv;  // argv[0] is the name shown in errors
  // "NAME=value" entries; nullopt inherits the daemon's environment.
  std::optional<std::vector<std::string>> env;
  std::string cwd;  // empty = inherit
  // Descriptors dup2'd onto the child's 0, 1 and 2; -1 opens /dev/null
  // there instead. The caller keeps (and closes) its own copies.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// The child's pid. Errors (nothing was started): NotFound or
// PermissionDenied for a missing or non-executable program or cwd, naming
// argv[0], the program and the cwd; InvalidArgument for an empty argv;
// Internal otherwise.
absl::StatusOr<pid_t> SpawnInNewSession(const SpawnRequest& request);

// A pidfd for `pid` (close-on-exec), or -1 when the kernel has none
// (before 5.3); callers then infer the exit from end-of-output.
int OpenPidfd(pid_t pid);

}  // namespace raw
