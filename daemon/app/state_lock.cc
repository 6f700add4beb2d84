#include "daemon/app/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace raw::app {
namespace {

// How often a start waiting for a stopping daemon tries the lock again.
constexpr absl::Duration kStoppingPoll = absl::Milliseconds(20);

constexpr char kStopping[] = " stopping";

struct Holder {
  long pid = 0;  // 0 when the file does not hold one yet (the holder may be
                 // between taking the lock and writing its pid)
  bool stopping = false;
};

// What the holder wrote: "PID\n", or "PID stopping\n" once it stops.
Holder ReadHolder(int fd) {
  char buf[64] = {};
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  Holder holder;
  if (n <= 0) return holder;
  absl::string_view text = absl::StripAsciiWhitespace(absl::string_view(buf, n));
  holder.stopping = absl::ConsumeSuffix(&text, kStopping);
  if (!absl::SimpleAtoi(text, &holder.pid)) holder = Holder();
  return holder;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateLock>> StateLock::Acquire(
    const std::string& lock_path, const std::string& state_dir, absl::Duration wait_for_stopping,
    const std::function<void(long pid)>& on_wait) {
  // Never through a symlink, nor into a file that is not this user's own
  // alone (a hard link): the file is truncated and written below, and
  // another user who can write the state directory could otherwise point
  // it at any file of this user's.
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ELOOP) {
      return absl::FailedPreconditionError(
          absl::StrCat("the lock file ", lock_path,
                       " is a symbolic link; refusing to follow it. "
                       "Remove it (and check who can write to ",
                       state_dir, ")"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open the lock file ", lock_path, ": ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("the lock file ", lock_path,
                     " is not a regular file of yours with one name (another "
                     "user may have prepared it); remove it (and check who can write to ",
                     state_dir, ")"));
  }
  const absl::Time give_up = absl::Now() + wait_for_stopping;
  bool told = false;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    const Holder holder = err == EWOULDBLOCK ? ReadHolder(fd) : Holder();
    if (err == EWOULDBLOCK && holder.stopping && absl::Now() < give_up) {
      // A daemon that is stopping (it has closed its socket) holds the
      // lock until its turns, servers and store are closed: wait for it.
      if (!told && on_wait) on_wait(holder.pid);
      told = true;
      absl::SleepFor(kStoppingPoll);
      continue;
    }
    close(fd);
    if (err != EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", lock_path, ": ", std::strerror(err)));
    }
    const std::string who = absl::StrCat(
        "another rawd ", holder.pid > 0 ? absl::StrCat("(pid ", holder.pid, ") ") : "");
    if (holder.stopping) {
      return absl::FailedPreconditionError(absl::StrCat(who, "is still stopping after ",
                                                        absl::FormatDuration(wait_for_stopping),
                                                        " for state directory ", state_dir));
    }
    return absl::FailedPreconditionError(
        absl::StrCat(who, "is already running for state directory ", state_dir));
  }
  std::string content = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, content.data(), content.size(), 0) != static_cast<ssize_t>(content.size())) {
    std::string err = std::strerror(errno);
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write the lock file ", lock_path, ": ", err));
  }
  return std::unique_ptr<StateLock>(new StateLock(fd));
}

void StateLock::MarkStopping() {
  std::string content = absl::StrCat(getpid(), kStopping, "\n");
  if (pwrite(fd_, content.data(), content.size(), 0) != static_cast<ssize_t>(content.size())) {
    // A next daemon then says this one still runs, as before.
  }
}

StateLock::~StateLock() {
  if (ftruncate(fd_, 0) != 0) {
    // Harmless: the next daemon overwrites the pid.
  }
  close(fd_);
}

}  // namespace raw::app
