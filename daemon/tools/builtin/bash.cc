// builtin/bash: runs `/bin/bash -c <command>` and returns its output.
//
// Process model: the command is started by SpawnInNewSession (spawn.h), so
// the shell leads a new session, hence a new process group whose id is its
// pid. stdin is /dev/null; stdout and stderr share one pipe.
// One poll(2) loop waits on that pipe, the cancel token's fd and a pidfd for
// the shell, and on nothing else: no sleeps, no busy loops.
//
// Endings: when the shell exits, whatever is already in the pipe is read and
// the tool returns; background jobs it left behind keep running, but their
// later output is not captured (they get EPIPE). On timeout or cancellation
// the whole process group (children and grandchildren) gets SIGTERM, then
// SIGKILL after a short grace, and every group member that is our child is
// reaped before the tool returns. Members whose parent died were re-parented
// to init (or the nearest subreaper: rawd, whose OrphanReaper reaps them).
//
// The shell is an owned child (common/owned_children.h): no orphan reaper
// takes it, so its exit status is this tool's to collect.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <set>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/child_env.h"
#include "common/owned_children.h"
#include "common/spawn.h"
#include "common/status_macros.h"
#include "daemon/tools/builtin/bash_output.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/tool_args.h"

namespace raw::tools::builtin {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kShell[] = "/bin/bash";
constexpr int64_t kDefaultTimeoutMs = 120000;
constexpr int64_t kDefaultMaxOutputBytes = 30000;
// A call may ask for up to this long (or up to the configured timeout when
// that is longer).
constexpr int64_t kMaxCallTimeoutSeconds = 600;
// Time between SIGTERM and SIGKILL for the process group.
constexpr auto kKillGrace = std::chrono::seconds(2);
// Reads per wake-up, so that a fast writer cannot starve the cancel check.
constexpr int kReadsPerWake = 16;

class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// The running command: the shell's pid (also its process group id), the
// read end of its output pipe and, when the kernel has pidfds, a descriptor
// that becomes readable when the shell exits.
struct Child {
  pid_t pid = -1;
  ScopedFd out;
  ScopedFd pidfd;
  bool output_open = true;
  bool exited = false;
};

absl::Status Spawn(const std::string& command, const std::string& cwd,
                   const std::set<std::string>& withheld_env, Child& child) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", strerror(errno)));
  }
  ScopedFd read_end(fds[0]);
  ScopedFd write_end(fds[1]);

  // stdin is /dev/null; stdout and stderr share one pipe, so the output
  // keeps the order in which the command wrote it.
  SpawnRequest request;
  request.program = kShell;
  request.argv = {"bash", "-c", command};
  // The daemon's environment without API keys and secret variables.
  ASSIGN_OR_RETURN(request.env, ChildEnvironment(withheld_env, {}));
  request.cwd = cwd;
  request.stdout_fd = write_end.get();
  request.stderr_fd = write_end.get();
  ASSIGN_OR_RETURN(pid_t pid, SpawnInNewSession(request));
  write_end.Reset();
  fcntl(read_end.get(), F_SETFL, fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  child.pid = pid;
  child.out.Reset(read_end.Release());
  // No pidfd (kernel before 5.3): exit is then inferred from end-of-output.
  child.pidfd.Reset(OpenPidfd(pid));
  return absl::OkStatus();
}

// Reads what the pipe holds now (bounded); marks end-of-output.
void ReadAvailable(Child& child, BashOutput& output) {
  char buf[64 * 1024];
  for (int i = 0; i < kReadsPerWake && child.output_open; ++i) {
    ssize_t n = read(child.out.get(), buf, sizeof buf);
    if (n > 0) {
      output.Append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      child.output_open = false;
    } else if (errno == EAGAIN) {
      return;
    }
  }
}

int MillisUntil(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

enum class Ending { kExited, kTimedOut, kCancelled, kWaitFailed };

// Waits until the shell exits, the deadline passes or `cancel` fires,
// collecting output meanwhile.
Ending Supervise(Child& child, BashOutput& output, Clock::time_point deadline,
                 const CancelToken& cancel) {
  while (true) {
    // A finished command reports its real result even if a cancel raced it.
    if (child.exited || (!child.output_open && child.pidfd.get() < 0)) return Ending::kExited;
    if (cancel.cancelled()) return Ending::kCancelled;
    int wait_ms = MillisUntil(deadline);
    if (wait_ms == 0) return Ending::kTimedOut;
    pollfd fds[3] = {{child.output_open ? child.out.get() : -1, POLLIN, 0},
                     {cancel.fd(), POLLIN, 0},
                     {child.pidfd.get(), POLLIN, 0}};
    int rc = poll(fds, 3, wait_ms);
    if (rc < 0 && errno != EINTR) return Ending::kWaitFailed;
    if (rc <= 0) continue;
    if (fds[0].revents != 0) ReadAvailable(child, output);
    if (fds[2].revents != 0) {
      // The shell is gone: take what it (and any job it waited for) wrote.
      child.exited = true;
      ReadAvailable(child, output);
    }
  }
}

// SIGTERM to the group, a grace period (ending early once the shell has
// exited and every writer has closed the pipe), then SIGKILL to the group.
void KillGroup(Child& child, BashOutput& output) {
  kill(-child.pid, SIGTERM);
  Clock::time_point grace_end = Clock::now() + kKillGrace;
  while (child.output_open || (!child.exited && child.pidfd.get() >= 0)) {
    int wait_ms = MillisUntil(grace_end);
    if (wait_ms == 0) break;
    pollfd fds[2] = {{child.output_open ? child.out.get() : -1, POLLIN, 0},
                     {child.exited ? -1 : child.pidfd.get(), POLLIN, 0}};
    int rc = poll(fds, 2, wait_ms);
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    if (fds[0].revents != 0) ReadAvailable(child, output);
    if (fds[1].revents != 0) child.exited = true;
  }
  // The shell is not reaped yet, so its pid (the group id) cannot have been
  // reused: this reaches only the command's own processes.
  kill(-child.pid, SIGKILL);
}

// Reaps the shell (blocking) and returns its wait status. With `all_of_group`,
// also waits for every other child of ours in the group (all of them were
// sent SIGKILL); otherwise only collects those already dead.
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

std::string Seconds(int64_t ms) { return absl::StrCat(static_cast<double>(ms) / 1000.0, " s"); }

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return absl::StrCat("killed by signal ", WTERMSIG(status),
                        name ? absl::StrCat(" (SIG", name, ")") : "");
  }
  return absl::StrCat("ended with wait status ", status);
}

ToolOutput Finish(events::ToolStatus status, const BashOutput& output, const std::string& note,
                  const ToolContext& ctx) {
  std::string text = output.Render({ctx.safe_end, ctx.safe_start});
  if (text.empty()) text = "(no output)";
  if (text.back() != '\n') text += '\n';
  absl::StrAppend(&text, "[", note, "]");
  return {status, std::move(text), {}, {}};
}

ToolOutput RunBash(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"command", "timeout_seconds"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> command = RequiredString(args, "command");
  if (!command.ok()) return ToolOutput::Error(std::string(command.status().message()));
  if (command->find_first_not_of(" \t\r\n") == std::string::npos) {
    return ToolOutput::Error("argument \"command\" is empty");
  }
  if (command->find('\0') != std::string::npos) {
    return ToolOutput::Error("argument \"command\" contains a NUL byte");
  }
  absl::StatusOr<std::optional<int64_t>> timeout_arg = OptionalInteger(args, "timeout_seconds", 1);
  if (!timeout_arg.ok()) return ToolOutput::Error(std::string(timeout_arg.status().message()));

  const int64_t configured_ms =
      ctx.settings.bash.timeout_ms > 0 ? ctx.settings.bash.timeout_ms : kDefaultTimeoutMs;
  const int64_t max_call_ms = std::max(kMaxCallTimeoutSeconds * 1000, configured_ms);
  int64_t timeout_ms = configured_ms;
  if (timeout_arg->has_value()) {
    if (**timeout_arg > max_call_ms / 1000) {
      return ToolOutput::Error(absl::StrCat("argument \"timeout_seconds\" must be at most ",
                                            max_call_ms / 1000, ", got ", **timeout_arg));
    }
    timeout_ms = **timeout_arg * 1000;
  }
  const int64_t cap = ctx.settings.bash.max_output_bytes > 0 ? ctx.settings.bash.max_output_bytes
                                                             : kDefaultMaxOutputBytes;

  if (ctx.cancel.cancelled()) return ToolOutput::Cancelled("cancelled before the command started");
  struct stat st;
  if (!ctx.cwd.empty() && (stat(ctx.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    return ToolOutput::Error(
        absl::StrCat("the working directory ", ctx.cwd, " does not exist or is not a directory"));
  }

  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  Child child;
  if (absl::Status s = Spawn(*command, ctx.cwd, ctx.withheld_env, child); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  BashOutput output(static_cast<size_t>(cap));
  Ending ending = Supervise(child, output, deadline, ctx.cancel);
  const int wait_errno = errno;
  if (ending == Ending::kExited) {
    int status = Reap(child.pid, /*all_of_group=*/false);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return Finish(ok ? events::ToolStatus::kOk : events::ToolStatus::kError, output,
                  DescribeExit(status), ctx);
  }
  KillGroup(child, output);
  Reap(child.pid, /*all_of_group=*/true);
  if (ending == Ending::kWaitFailed) {
    return Finish(events::ToolStatus::kError, output,
                  absl::StrCat("could not wait for the command (poll: ", strerror(wait_errno),
                               "); the command and its process group were killed"),
                  ctx);
  }
  if (ending == Ending::kTimedOut) {
    return Finish(events::ToolStatus::kError, output,
                  absl::StrCat("timed out after ", Seconds(timeout_ms),
                               "; the command and its process group were killed"),
                  ctx);
  }
  return Finish(events::ToolStatus::kCancelled, output,
                "cancelled; the command and its process group were killed", ctx);
}

}  // namespace

ToolSpec MakeBashTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/bash";
  spec.model_name = "bash";
  spec.description = absl::StrCat(
      "Run a shell command with /bin/bash -c in the session's working directory and return its "
      "combined stdout and stderr, followed by the exit code. stdin is empty (/dev/null), so "
      "interactive programs cannot prompt. Each call is a fresh shell: cd and variables do not "
      "carry over. Long output keeps its beginning and end, with a note of how many bytes were "
      "left out. A command that runs past its timeout is killed together with everything it "
      "started. Background jobs (cmd &) may keep running after the call returns; redirect their "
      "output to a file.");
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"command", {{"type", "string"}, {"description", "The bash command line to run."}}},
        {"timeout_seconds",
         {{"type", "integer"},
          {"minimum", 1},
          {"description",
           absl::StrCat("Seconds before the command is killed. Default: the configured bash "
                        "timeout (120 unless changed). At most ",
                        kMaxCallTimeoutSeconds,
                        ", or the configured timeout when that is longer.")}}}}},
      {"required", {"command"}},
      {"additionalProperties", false}};
  spec.read_only = false;
  spec.rule_subject = RuleSubject::kCommand;
  spec.rule_argument = "command";
  spec.handler = RunBash;
  return spec;
}

}  // namespace raw::tools::builtin
