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

namespace raw::app {
namespace {

// The pid recorded by the holder, or 0 when the file does not hold one yet
// (the holder may be between taking the lock and writing its pid).
long ReadPid(int fd) {
  char buf[32] = {};
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  long pid = 0;
  if (n <= 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(std::string(buf, n)), &pid)) return 0;
  return pid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateLock>> StateLock::Acquire(const std::string& lock_path,
                                                              const std::string& state_dir) {
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
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    long pid = err == EWOULDBLOCK ? ReadPid(fd) : 0;
    close(fd);
    if (err != EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", lock_path, ": ", std::strerror(err)));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("another rawd ", pid > 0 ? absl::StrCat("(pid ", pid, ") ") : "",
                     "is already running for state directory ", state_dir));
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

StateLock::~StateLock() {
  if (ftruncate(fd_, 0) != 0) {
    // Harmless: the next daemon overwrites the pid.
  }
  close(fd_);
}

}  // namespace raw::app
