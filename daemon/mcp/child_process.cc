#include "daemon/mcp/child_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "common/owned_children.h"
#include "common/spawn.h"
#include "common/status_macros.h"
#include "common/subprocess.h"

namespace raw::mcp {
namespace {

constexpr char kDefaultPath[] = "/bin:/usr/bin";

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }


}  // namespace

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(
    const ChildProcessOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) {
    return absl::InvalidArgumentError("the server command is empty");
  }
  for (const std::string& arg : options.argv) {
    if (arg.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError("an argument of the server command contains a NUL byte");
    }
  }
  std::vector<std::string> env;
  for (const auto& [key, value] : options.env) {
    if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos ||
        value.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid environment variable name \"", key, "\" or value"));
    }
    env.push_back(absl::StrCat(key, "=", value));
  }
  if (!options.cwd.empty()) {
    struct stat st;
    if (stat(options.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::NotFoundError(
          absl::StrCat("working directory ", options.cwd, " does not exist or is not a directory"));
    }
  }
  auto path = options.env.find("PATH");
  ASSIGN_OR_RETURN(
      std::string program,
      FindProgram(options.argv[0], path != options.env.end() ? path->second : kDefaultPath,
                  options.cwd));

  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", strerror(errno)));
  }
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", strerror(errno)));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", strerror(errno)));
  }

  SpawnRequest request;
  request.program = program;
  request.argv = options.argv;
  request.env = std::move(env);
  request.cwd = options.cwd;
  request.stdin_fd = in[0];
  request.stdout_fd = out[1];
  request.stderr_fd = err[1];
  absl::StatusOr<pid_t> spawned = SpawnInNewSession(request);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  if (!spawned.ok()) {
    for (int fd : {in[1], out[0], err[0]}) close(fd);
    return spawned.status();
  }
  pid_t pid = *spawned;
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->stdin_fd_ = in[1];
  child->stdout_fd_ = out[0];
  child->stderr_fd_ = err[0];
  child->pidfd_ = OpenPidfd(pid);
  SetNonBlocking(child->stdin_fd_);
  SetNonBlocking(child->stdout_fd_);
  SetNonBlocking(child->stderr_fd_);
  return child;
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    SignalGroup(SIGKILL);
    Reap();
  }
  CloseFd(stdin_fd_);
  CloseFd(stdout_fd_);
  CloseFd(stderr_fd_);
  CloseFd(pidfd_);
}

absl::StatusOr<size_t> ChildProcess::WriteStdinSome(std::string_view data) {
  if (stdin_fd_ < 0) return absl::FailedPreconditionError("the connection is closed");
  while (true) {
    ssize_t n = WriteWithoutSigpipe(stdin_fd_, data.data(), data.size());
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return 0;
    return absl::UnavailableError(
        absl::StrCat("the server closed its input (", strerror(errno), ")"));
  }
}

void ChildProcess::CloseStdin() { CloseFd(stdin_fd_); }
void ChildProcess::CloseStdout() { CloseFd(stdout_fd_); }
void ChildProcess::CloseStderr() { CloseFd(stderr_fd_); }

void ChildProcess::SignalGroup(int signal) {
  // Not reaped yet, so the group id cannot belong to anyone else.
  if (!reaped_ && pid_ > 0) kill(-pid_, signal);
}

std::string ChildProcess::Reap() {
  if (reaped_) return exit_description_;
  int status = WaitOwnedChild(pid_);
  reaped_ = true;
  if (WIFEXITED(status)) {
    exit_description_ = absl::StrCat("exited with code ", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    exit_description_ = absl::StrCat("was killed by signal ", WTERMSIG(status), " (",
                                     strsignal(WTERMSIG(status)), ")");
  } else {
    exit_description_ = "ended";
  }
  return exit_description_;
}

}  // namespace raw::mcp
