// ChildProcess: a long-running child (an MCP stdio server) with pipes on its
// stdin, stdout and stderr, in its own process group.
//
// Spawned with posix_spawn (safe in a threaded daemon) as the leader of a new
// session, hence of a new process group whose id is its pid, so signals sent
// with SignalGroup reach whatever it started. A pidfd becomes readable when
// the child exits; the child stays a zombie until Reap(), so its pid (the
// group id) cannot be reused while signals may still be sent to the group.
//
// Ownership: owns the pipe ends and the pidfd. The destructor of a child
// that was not reaped kills its group and reaps it.
// Thread-safety: thread-compatible; StdioTransport uses one instance from
// its reader thread, except stdin_fd/WriteStdinSome (its writer thread) and
// CloseStdin, which it serializes with a mutex of its own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw::mcp {

struct ChildProcessOptions {
  // argv[0] is looked up on the PATH of `env` (see raw::FindProgram).
  std::vector<std::string> argv;
  std::string cwd;  // empty = the daemon's
  // The complete environment of the child.
  std::map<std::string, std::string> env;
};

class ChildProcess {
 public:
  // NotFound / PermissionDenied name the program when it cannot be run;
  // NotFound names a missing working directory.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Spawn(const ChildProcessOptions& options);

  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Non-blocking read ends; -1 once closed.
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  // Readable once the child exited; -1 when the kernel has no pidfds.
  int pidfd() const { return pidfd_; }

  // The non-blocking write end of the child's stdin; -1 once closed.
  int stdin_fd() const { return stdin_fd_; }
  // Writes what the pipe takes of `data` now, never waiting: the number of
  // bytes written, 0 when the pipe is full (poll stdin_fd for POLLOUT).
  // Unavailable when the child closed its stdin; FailedPrecondition after
  // CloseStdin.
  absl::StatusOr<size_t> WriteStdinSome(std::string_view data);
  void CloseStdin();
  void CloseStdout();
  void CloseStderr();

  // Sends `signal` to the child's process group (no-op once reaped).
  void SignalGroup(int signal);

  // Waits for the child to exit (blocking; call once the pidfd is readable
  // or after SIGKILL) and returns how it ended: "exited with code 1",
  // "was killed by signal 9". Later calls return the same text.
  std::string Reap();
  bool reaped() const { return reaped_; }

 private:
  ChildProcess() = default;

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  std::string exit_description_;
};

}  // namespace raw::mcp
