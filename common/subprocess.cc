// RunSubprocess: posix_spawn into a new session, three pipes, one poll(2)
// loop.
//
// The child is started by SpawnInNewSession (spawn.h): it leads a new
// session, hence a new process group whose id is its pid, so a timeout or a
// cancel reaches everything it started. The poll set holds the stdin pipe
// (while there is data left to write), the stdout and stderr pipes, the
// cancel token's fd and a pidfd for the child: stdin is written as the child
// drains it while its output is read, so neither side can block the other.

#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/child_env.h"
#include "common/owned_children.h"
#include "common/spawn.h"
#include "common/status_macros.h"

namespace raw {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kChunkBytes = 64 * 1024;
// Reads per stream per wake-up, so that a fast writer cannot starve the
// other fds (and the cancel check).
constexpr int kReadsPerWake = 16;
// Reads per stream once the child has exited: enough for a full pipe
// buffer, bounded so a background writer cannot keep the call alive.
constexpr int kReadsAfterExit = 64;
// glibc's PATH when none is set.
constexpr char kDefaultPath[] = "/bin:/usr/bin";

class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ~ScopedFd() { Reset(); }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// One output pipe and where its bytes go.
struct OutputPipe {
  ScopedFd fd;
  std::string* sink = nullptr;
  bool* truncated = nullptr;
  size_t cap = 0;
};

// Reads what `pipe` holds now, at most `max_reads` chunks; closes it at
// end-of-file or on an error. Bytes past the cap are read and dropped so the
// child never blocks on a full pipe.
void ReadAvailable(OutputPipe& pipe, int max_reads) {
  char buf[kChunkBytes];
  for (int i = 0; i < max_reads && pipe.fd.valid(); ++i) {
    ssize_t n = read(pipe.fd.get(), buf, sizeof buf);
    if (n > 0) {
      size_t room = pipe.cap - std::min(pipe.cap, pipe.sink->size());
      size_t take = std::min(room, static_cast<size_t>(n));
      pipe.sink->append(buf, take);
      if (take < static_cast<size_t>(n)) *pipe.truncated = true;
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      pipe.fd.Reset();
    } else if (errno == EAGAIN) {
      return;
    }
  }
}

int MillisUntil(SteadyClock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

std::string PathValue(const SubprocessOptions& options) {
  if (auto it = options.env.find("PATH"); it != options.env.end()) return it->second;
  const char* path = getenv("PATH");
  return path != nullptr ? path : kDefaultPath;
}

// The running child: its pid (also its process group id), the parent's ends
// of its pipes and, when the kernel has pidfds, one that becomes readable
// when it exits.
struct Child {
  pid_t pid = -1;
  ScopedFd in;
  OutputPipe out;
  OutputPipe err;
  ScopedFd pidfd;
  bool exited = false;
};

absl::Status MakePipe(ScopedFd& read_end, ScopedFd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", strerror(errno)));
  }
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  return absl::OkStatus();
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

absl::Status Spawn(const SubprocessOptions& options, const std::string& program,
                   std::vector<std::string> env, Child& child) {
  ScopedFd in_read, out_write, err_write;
  RETURN_IF_ERROR(MakePipe(in_read, child.in));
  RETURN_IF_ERROR(MakePipe(child.out.fd, out_write));
  RETURN_IF_ERROR(MakePipe(child.err.fd, err_write));

  SpawnRequest request;
  request.program = program;
  request.argv = options.argv;
  request.env = std::move(env);
  request.cwd = options.cwd;
  request.stdin_fd = in_read.get();
  request.stdout_fd = out_write.get();
  request.stderr_fd = err_write.get();
  ASSIGN_OR_RETURN(pid_t pid, SpawnInNewSession(request));
  child.pid = pid;
  // Without a pidfd (kernel before 5.3) exit is inferred from end-of-output.
  child.pidfd.Reset(OpenPidfd(pid));
  SetNonBlocking(child.in.get());
  SetNonBlocking(child.out.fd.get());
  SetNonBlocking(child.err.fd.get());
  if (options.stdin_data.empty()) child.in.Reset();
  return absl::OkStatus();
}

enum class Ending { kExited, kTimedOut, kCancelled, kWaitFailed };

// Feeds stdin and collects output until the child exits, the deadline
// passes or `cancel` fires.
Ending Supervise(Child& child, const std::string& input,
                 std::optional<SteadyClock::time_point> deadline, const CancelToken& cancel) {
  size_t written = 0;
  while (true) {
    // A finished child reports its real result even if a cancel raced it.
    if (child.exited) return Ending::kExited;
    if (!child.pidfd.valid() && !child.out.fd.valid() && !child.err.fd.valid()) {
      return Ending::kExited;
    }
    if (cancel.cancelled()) return Ending::kCancelled;
    int wait_ms = deadline ? MillisUntil(*deadline) : -1;
    if (wait_ms == 0) return Ending::kTimedOut;
    pollfd fds[5] = {{child.in.get(), POLLOUT, 0},
                     {child.out.fd.get(), POLLIN, 0},
                     {child.err.fd.get(), POLLIN, 0},
                     {cancel.fd(), POLLIN, 0},
                     {child.pidfd.get(), POLLIN, 0}};
    int rc = poll(fds, 5, wait_ms);
    if (rc < 0 && errno != EINTR) return Ending::kWaitFailed;
    if (rc <= 0) continue;
    if (fds[0].revents & POLLOUT) {
      size_t size = std::min(kChunkBytes, input.size() - written);
      ssize_t n = WriteWithoutSigpipe(child.in.get(), input.data() + written, size);
      if (n > 0) written += static_cast<size_t>(n);
      // EPIPE: the child closed its stdin; the rest of the input is dropped.
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
        child.in.Reset();
      }
    } else if (fds[0].revents & (POLLERR | POLLHUP)) {
      child.in.Reset();
    }
    if (fds[1].revents != 0) ReadAvailable(child.out, kReadsPerWake);
    if (fds[2].revents != 0) ReadAvailable(child.err, kReadsPerWake);
    if (fds[4].revents != 0) {
      // The child is gone: take what it already wrote.
      child.exited = true;
      ReadAvailable(child.out, kReadsAfterExit);
      ReadAvailable(child.err, kReadsAfterExit);
    }
  }
}

// SIGTERM to the group, a grace period (ending early once the child has
// exited and every writer has closed the pipes), then SIGKILL to the group.
void KillGroup(Child& child, int64_t grace_ms) {
  child.in.Reset();
  kill(-child.pid, SIGTERM);
  const SteadyClock::time_point grace_end =
      SteadyClock::now() + std::chrono::milliseconds(grace_ms);
  while (child.out.fd.valid() || child.err.fd.valid() ||
         (!child.exited && child.pidfd.valid())) {
    int wait_ms = MillisUntil(grace_end);
    if (wait_ms == 0) break;
    pollfd fds[3] = {{child.out.fd.get(), POLLIN, 0},
                     {child.err.fd.get(), POLLIN, 0},
                     {child.exited ? -1 : child.pidfd.get(), POLLIN, 0}};
    int rc = poll(fds, 3, wait_ms);
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    if (fds[0].revents != 0) ReadAvailable(child.out, kReadsPerWake);
    if (fds[1].revents != 0) ReadAvailable(child.err, kReadsPerWake);
    if (fds[2].revents != 0) child.exited = true;
  }
  // The child is not reaped yet, so its pid (the group id) cannot have been
  // reused: this reaches only the child's own processes.
  kill(-child.pid, SIGKILL);
}

// Reaps the child (blocking) and returns its wait status. With
// `all_of_group`, also waits for every other child of this process in the
// group (all were sent SIGKILL); otherwise only collects those already dead.
int Reap(pid_t pid, bool all_of_group) {
  int status = WaitOwnedChild(pid);
  int ignored;
  while (true) {
    pid_t r = waitpid(-pid, &ignored, all_of_group ? 0 : WNOHANG);
    if (r > 0 || (r < 0 && errno == EINTR)) continue;
    break;
  }
  return status;
}

}  // namespace

ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_only;
  sigset_t old_mask;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t n = write(fd, data, size);
  const int saved_errno = errno;
  if (n < 0 && saved_errno == EPIPE && !was_pending) {
    timespec no_wait{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &no_wait) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  errno = saved_errno;
  return n;
}

absl::StatusOr<std::string> FindProgram(const std::string& program, const std::string& path_env,
                                        const std::string& cwd) {
  if (program.empty()) return absl::InvalidArgumentError("the program name is empty");
  auto in_cwd = [&cwd](const std::string& p) {
    return p.empty() || p[0] != '/' ? (cwd.empty() ? p : absl::StrCat(cwd, "/", p)) : p;
  };
  struct stat st;
  if (program.find('/') != std::string::npos) {
    std::string path = in_cwd(program);
    if (stat(path.c_str(), &st) != 0) {
      return absl::NotFoundError(absl::StrCat("program \"", program, "\" not found",
                                              path != program ? absl::StrCat(" (", path, ")") : "",
                                              ": ", strerror(errno)));
    }
    if (S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat("program \"", program, "\" is a directory"));
    }
    if (access(path.c_str(), X_OK) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "program \"", program, "\" is not executable (set its execute bit: chmod +x)"));
    }
    return path;
  }
  std::string not_executable;
  for (absl::string_view dir : absl::StrSplit(path_env, ':')) {
    // An empty or relative entry names a directory under wherever the child
    // runs, often a project a repository fills: skipped, so that a cloned
    // repository cannot put its own `jq` or `logger` in front of a hook's.
    if (dir.empty() || dir[0] != '/') continue;
    std::string path = absl::StrCat(dir, "/", program);
    if (stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
    if (access(path.c_str(), X_OK) == 0) return path;
    if (not_executable.empty()) not_executable = path;
  }
  if (!not_executable.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("program \"", program, "\" found on PATH as ", not_executable,
                     ", which is not executable"));
  }
  return absl::NotFoundError(
      absl::StrCat("program \"", program, "\" not found on PATH (", path_env, ")"));
}

absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessOptions& options,
                                               const CancelToken& cancel) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("no program to run (the command is empty)");
  }
  for (const std::string& arg : options.argv) {
    if (arg.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("an argument of \"", options.argv[0].c_str(), "\" contains a NUL byte"));
    }
  }
  SubprocessResult result;
  if (cancel.cancelled()) {
    result.cancelled = true;
    return result;
  }
  if (!options.cwd.empty()) {
    struct stat st;
    if (stat(options.cwd.c_str(), &st) != 0) {
      return absl::NotFoundError(absl::StrCat("working directory ", options.cwd,
                                              " does not exist: ", strerror(errno)));
    }
    if (!S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(
          absl::StrCat("working directory ", options.cwd, " is not a directory"));
    }
  }
  // The child's PATH keeps only absolute entries, as FindProgram looks the
  // program up: a script the child runs finds its `jq` where the program
  // was found, never in the directory it runs in.
  const std::string path = AbsolutePathEntries(PathValue(options));
  std::map<std::string, std::string> overrides = options.env;
  overrides["PATH"] = path;
  ASSIGN_OR_RETURN(std::vector<std::string> env, ChildEnvironment(options.withheld_env, overrides));
  ASSIGN_OR_RETURN(std::string program, FindProgram(options.argv[0], path, options.cwd));

  const size_t cap = static_cast<size_t>(std::max<int64_t>(options.max_output_bytes, 0));
  Child child;
  child.out.sink = &result.stdout_data;
  child.out.truncated = &result.stdout_truncated;
  child.out.cap = cap;
  child.err.sink = &result.stderr_data;
  child.err.truncated = &result.stderr_truncated;
  child.err.cap = cap;
  std::optional<SteadyClock::time_point> deadline;
  if (options.timeout_ms > 0) {
    deadline = SteadyClock::now() + std::chrono::milliseconds(options.timeout_ms);
  }
  RETURN_IF_ERROR(Spawn(options, program, std::move(env), child));

  Ending ending = Supervise(child, options.stdin_data, deadline, cancel);
  int status = 0;
  if (ending == Ending::kExited) {
    status = Reap(child.pid, /*all_of_group=*/false);
  } else {
    KillGroup(child, std::max<int64_t>(options.kill_grace_ms, 0));
    status = Reap(child.pid, /*all_of_group=*/true);
    result.timed_out = ending == Ending::kTimedOut;
    // A failed poll(2) (never expected) is reported as a cancellation: the
    // child was stopped for a reason other than its own.
    result.cancelled = ending == Ending::kCancelled || ending == Ending::kWaitFailed;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

}  // namespace raw
