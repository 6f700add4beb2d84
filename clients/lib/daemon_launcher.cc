#include "clients/lib/daemon_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/ascii.h"
#include "common/status_macros.h"

namespace raw::client {
namespace {

// How much of rawd's stderr is kept for the error message (the tail).
constexpr size_t kMaxStderrBytes = 64 * 1024;
// After rawd gave up, how long to wait for the rest of its stderr.
constexpr absl::Duration kStderrDrainTime = absl::Seconds(5);

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

absl::Status ErrnoError(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Returns `fd` moved to 3 or above (close-on-exec), so that the child's
// dup2 onto 0, 1 and 2 can never clobber it. A client started with closed
// stdio gets its pipes at 0..2.
absl::StatusOr<UniqueFd> AboveStdio(int fd) {
  UniqueFd owned(fd);
  if (fd > 2) return owned;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return ErrnoError("cannot move a descriptor");
  return UniqueFd(moved);
}

absl::Status MakePipe(UniqueFd* read_end, UniqueFd* write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return ErrnoError("cannot create a pipe");
  absl::StatusOr<UniqueFd> r = AboveStdio(fds[0]);
  absl::StatusOr<UniqueFd> w = AboveStdio(fds[1]);
  if (!r.ok()) return r.status();
  if (!w.ok()) return w.status();
  *read_end = std::move(*r);
  *write_end = std::move(*w);
  return absl::OkStatus();
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string CurrentDir() {
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

std::optional<std::string> SearchPath(const EnvLookup& env, const std::string& name) {
  auto path = env("PATH");
  if (!path) return std::nullopt;
  for (absl::string_view dir : absl::StrSplit(*path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (IsExecutableFile(candidate)) return AbsolutePath(candidate, CurrentDir());
  }
  return std::nullopt;
}

// Writes the decimal digits of `value`; async-signal-safe.
void WriteNumber(int fd, int value) {
  char digits[16];
  int n = 0;
  unsigned v = value < 0 ? 0u : static_cast<unsigned>(value);
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < 16);
  while (n > 0) {
    if (write(fd, &digits[--n], 1) < 0) return;
  }
}

// The forked side. Only async-signal-safe calls: the client may run other
// threads, and their locks are in an unknown state in the child.
[[noreturn]] void ExecDaemon(char* const* argv, int null_fd, int err_fd, int ready_fd,
                             const std::string& exec_error) {
  // A new session without a controlling terminal; the second fork makes the
  // daemon an orphan (re-parented to init or the subreaper) that can never
  // acquire a terminal again, and the intermediate child exits at once.
  if (setsid() < 0) _exit(127);
  pid_t pid = fork();
  if (pid != 0) _exit(pid < 0 ? 127 : 0);

  // The client may block or catch signals (raw run catches SIGINT); the
  // daemon starts from the defaults.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &dfl, nullptr);

  if (dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
  // Nothing but stdio and the ready fd reaches the daemon; in particular not
  // the autostart lock, which would otherwise stay locked for its lifetime.
  close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (fcntl(ready_fd, F_SETFD, 0) < 0) _exit(127);
  if (chdir("/") != 0) _exit(127);
  execv(argv[0], argv);
  int err = errno;
  if (write(2, exec_error.data(), exec_error.size()) >= 0) WriteNumber(2, err);
  if (write(2, "\n", 1) < 0) _exit(127);
  _exit(127);
}

std::string Tail(std::string text) {
  if (text.size() > kMaxStderrBytes) text.erase(0, text.size() - kMaxStderrBytes);
  return std::string(absl::StripTrailingAsciiWhitespace(text));
}

enum class Readiness { kWaiting, kReady, kFailed, kBadByte };

// Reads what is available on `fd` into `out`; returns false at EOF/error.
bool ReadSome(int fd, std::string* out) {
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  out->append(buf, static_cast<size_t>(n));
  if (out->size() > 2 * kMaxStderrBytes) out->erase(0, out->size() - kMaxStderrBytes);
  return true;
}

int RemainingMs(absl::Time deadline) {
  absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1 << 30));
}

}  // namespace

std::string SelfExecutable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

absl::StatusOr<std::string> FindDaemonBinary(const EnvLookup& env, const std::string& self_exe) {
  if (auto configured = env("RAW_DAEMON")) {
    std::optional<std::string> path;
    if (configured->find('/') == std::string::npos) {
      path = SearchPath(env, *configured);
    } else if (IsExecutableFile(*configured)) {
      path = AbsolutePath(*configured, CurrentDir());
    }
    if (!path) {
      return absl::FailedPreconditionError(absl::StrCat(
          "RAW_DAEMON is set to \"", *configured, "\", which is not an executable file"));
    }
    return *path;
  }
  std::string beside;
  if (!self_exe.empty()) {
    beside = absl::StrCat(Dirname(self_exe), "/rawd");
    if (IsExecutableFile(beside)) return beside;
  }
  if (auto on_path = SearchPath(env, "rawd")) return *on_path;
  return absl::NotFoundError(absl::StrCat(
      "cannot find the daemon executable rawd: it is not ",
      beside.empty() ? "" : absl::StrCat("at ", beside, " nor "),
      "on PATH; set RAW_DAEMON to its path"));
}

absl::Status LaunchDaemon(const DaemonLaunch& launch) {
  if (!IsExecutableFile(launch.daemon_path)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start the daemon: ", launch.daemon_path, " is not an executable file"));
  }
  UniqueFd ready_r, ready_w, err_r, err_w;
  RETURN_IF_ERROR(MakePipe(&ready_r, &ready_w));
  RETURN_IF_ERROR(MakePipe(&err_r, &err_w));
  int null_raw = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_raw < 0) return ErrnoError("cannot open /dev/null");
  ASSIGN_OR_RETURN(UniqueFd null_fd, AboveStdio(null_raw));

  // Everything the child needs is built before fork: it may not allocate.
  std::vector<std::string> args = {launch.daemon_path, "--socket", launch.socket_path,
                                   "--ready-fd", std::to_string(ready_w.get())};
  args.insert(args.end(), launch.extra_args.begin(), launch.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string exec_error =
      absl::StrCat("cannot execute ", launch.daemon_path, ": error number ");

  pid_t child = fork();
  if (child < 0) return ErrnoError("cannot fork to start rawd");
  if (child == 0) {
    ExecDaemon(argv.data(), null_fd.get(), err_w.get(), ready_w.get(), exec_error);
  }
  // Only the daemon may hold the write ends, so that EOF means it is gone.
  ready_w.Reset();
  err_w.Reset();
  null_fd.Reset();
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::InternalError("cannot start rawd: the detaching fork failed");
  }

  std::string err_text;
  bool err_open = true;
  Readiness readiness = Readiness::kWaiting;
  const absl::Time deadline = absl::Now() + launch.ready_timeout;
  while (readiness == Readiness::kWaiting) {
    // rawd's stderr is drained while waiting, or a chatty start-up would
    // block on a full pipe and never get to its ready byte.
    pollfd fds[2] = {{ready_r.get(), POLLIN, 0}, {err_open ? err_r.get() : -1, POLLIN, 0}};
    int timeout = RemainingMs(deadline);
    if (timeout == 0) {
      return absl::DeadlineExceededError(absl::StrCat(
          "rawd (", launch.daemon_path, ") did not report that it is ready within ",
          absl::FormatDuration(launch.ready_timeout), "; it may still be starting"));
    }
    int n = poll(fds, 2, timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("waiting for rawd");
    }
    if (err_open && fds[1].revents != 0) err_open = ReadSome(err_r.get(), &err_text);
    if (fds[0].revents != 0) {
      char byte = 0;
      ssize_t r = read(ready_r.get(), &byte, 1);
      if (r < 0 && errno == EINTR) continue;
      if (r == 1) {
        readiness = byte == 'R' ? Readiness::kReady : Readiness::kBadByte;
      } else {
        readiness = Readiness::kFailed;
      }
    }
  }
  if (readiness == Readiness::kReady) return absl::OkStatus();

  // rawd gave up: its reason may still be on the way. EOF on stderr means
  // every writer is gone; a bounded wait covers a child of rawd keeping it.
  const absl::Time drain_deadline = absl::Now() + kStderrDrainTime;
  while (err_open) {
    pollfd fd = {err_r.get(), POLLIN, 0};
    int timeout = RemainingMs(drain_deadline);
    if (timeout == 0) break;
    int n = poll(&fd, 1, timeout);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    err_open = ReadSome(err_r.get(), &err_text);
  }
  std::string reason = Tail(std::move(err_text));
  std::string what = readiness == Readiness::kBadByte
                         ? "sent an unexpected readiness signal"
                         : "failed to start";
  if (reason.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "rawd (", launch.daemon_path, ") ", what, " and printed no reason"));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("rawd (", launch.daemon_path, ") ", what, ":\n", reason));
}

}  // namespace raw::client
