// RunSubprocess: runs argv as a child in its own process group, feeds it
// stdin, collects stdout and stderr separately (each capped), and ends it on
// timeout or cancellation (SIGTERM to the group, SIGKILL after a grace),
// reaping it before returning. Built on posix_spawn, safe in a threaded
// daemon; waits with poll(2) on the pipes, a pidfd and the cancel fd: no
// sleeps.
//
// The child is an owned child (owned_children.h): an orphan reaper never
// takes its exit status.
// Thread-safety: any number of calls may run concurrently.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"

namespace raw {

struct SubprocessOptions {
  // argv[0] is looked up on PATH (env's PATH when it sets one), or, when it
  // contains '/', taken as a path relative to `cwd`; see FindProgram.
  std::vector<std::string> argv;
  std::string cwd;                // empty = inherit
  std::string stdin_data;         // written, then stdin is closed
  // Extra environment entries (added to / overriding the daemon's).
  std::map<std::string, std::string> env;
  // Names of the daemon's environment left out of the child's (secrets;
  // see child_env.h).
  std::set<std::string> withheld_env;
  int64_t timeout_ms = 30000;  // 0 = none
  int64_t max_output_bytes = 1 << 20;  // per stream; the rest is dropped
  // Time between SIGTERM and SIGKILL to the group on timeout or cancel.
  int64_t kill_grace_ms = 2000;
};

struct SubprocessResult {
  // Exit code when the child exited; nullopt when killed by a signal.
  std::optional<int> exit_code;
  std::optional<int> term_signal;
  bool timed_out = false;
  bool cancelled = false;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::string stdout_data;
  std::string stderr_data;
};

// Errors only when the child could not be started (e.g. NotFound for an
// unknown program, with the program's name; InvalidArgument for an empty
// argv or a malformed env entry; NotFound for a missing cwd); anything after
// that (a crash, a timeout) is reported in the result. A token already
// cancelled on entry starts nothing and returns {cancelled = true}.
// When the child exits, what it already wrote is collected and the call
// returns; background processes it left in its group keep running, and
// their later output is not captured.
absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessOptions& options,
                                               const CancelToken& cancel);

// The file RunSubprocess would execute for `program`: a name containing '/'
// is taken as a path (relative to `cwd` when `cwd` is set), any other name is
// looked up in the absolute entries of `path_env` (a PATH value; empty and
// relative entries are skipped, unlike a shell's lookup: they would name
// directories under `cwd`, which may be a project that ships programs of its
// own). NotFound names the program and
// where it was looked for; PermissionDenied when it exists but is not
// executable.
absl::StatusOr<std::string> FindProgram(const std::string& program, const std::string& path_env,
                                        const std::string& cwd);

// write(2) to a pipe without a process-wide SIGPIPE: the signal is blocked in
// the calling thread for the call, and one the call raised is consumed (a
// write to a pipe raises SIGPIPE in the writing thread). The failure is then
// EPIPE. Thread-safe.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size);

}  // namespace raw
