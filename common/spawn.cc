#include "common/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "common/child_ledger.h"
#include "common/failpoint.h"
#include "common/owned_children.h"

extern char** environ;

namespace raw {
namespace {

// Owns the posix_spawn attribute objects for one call.
class SpawnSettings {
 public:
  SpawnSettings() {
    posix_spawn_file_actions_init(&actions_);
    posix_spawnattr_init(&attr_);
  }
  ~SpawnSettings() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attr_);
  }
  SpawnSettings(const SpawnSettings&) = delete;
  SpawnSettings& operator=(const SpawnSettings&) = delete;

  void Redirect(int fd, int target, int null_flags) {
    if (fd >= 0) {
      posix_spawn_file_actions_adddup2(&actions_, fd, target);
    } else {
      posix_spawn_file_actions_addopen(&actions_, target, "/dev/null", null_flags, 0);
    }
  }

  void Finish(const std::string& cwd) {
    posix_spawn_file_actions_addclosefrom_np(&actions_, 3);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions_, cwd.c_str());
    sigset_t all;
    sigset_t none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr_, &all);
    posix_spawnattr_setsigmask(&attr_, &none);
    posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF |
                                         POSIX_SPAWN_SETSIGMASK);
  }

  const posix_spawn_file_actions_t* actions() const { return &actions_; }
  const posix_spawnattr_t* attr() const { return &attr_; }

 private:
  posix_spawn_file_actions_t actions_;
  posix_spawnattr_t attr_;
};

std::vector<char*> PointersTo(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

absl::StatusOr<pid_t> SpawnInNewSession(const SpawnRequest& request) {
  if (request.argv.empty()) return absl::InvalidArgumentError("cannot start a program: no argv");
  SpawnSettings settings;
  settings.Redirect(request.stdin_fd, 0, O_RDONLY);
  settings.Redirect(request.stdout_fd, 1, O_WRONLY);
  settings.Redirect(request.stderr_fd, 2, O_WRONLY);
  settings.Finish(request.cwd);

  std::vector<std::string> args = request.argv;
  std::vector<char*> argv = PointersTo(args);
  // Every child carries its mark from the ledger (child_ledger.h), in place
  // of any it inherited, so that a daemon started after a crash finds it.
  const std::string mark_name = "RAW_DAEMON_CHILD=";
  std::vector<std::string> env_copy;
  if (request.env.has_value()) {
    env_copy = *request.env;
  } else {
    for (char** e = environ; *e != nullptr; ++e) env_copy.emplace_back(*e);
  }
  pid_t pid = -1;
  int rc = 0;
  // Recorded as owned before any orphan reaper can see it exit.
  StartOwnedChild([&](const std::string& mark) {
    if (!mark.empty()) {
      std::erase_if(env_copy, [&](const std::string& e) { return e.rfind(mark_name, 0) == 0; });
      env_copy.push_back(mark);
    }
    std::vector<char*> envp = PointersTo(env_copy);
    rc = posix_spawn(&pid, request.program.c_str(), settings.actions(), settings.attr(),
                     argv.data(), envp.data());
    return rc == 0 ? pid : -1;
  });
  if (rc == 0) {
    RAW_FAILPOINT("process.spawned");
    return pid;
  }
  std::string where = request.cwd.empty() ? "" : absl::StrCat(" in ", request.cwd);
  std::string message = absl::StrCat("cannot start \"", request.argv[0], "\" (", request.program,
                                     ")", where, ": ", strerror(rc));
  if (rc == ENOENT) return absl::NotFoundError(message);
  if (rc == EACCES) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

int OpenPidfd(pid_t pid) {
  // Through syscall(2): glibc 2.36's <sys/pidfd.h> lacks C linkage for C++.
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

}  // namespace raw
