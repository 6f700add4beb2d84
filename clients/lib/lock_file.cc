#include "clients/lib/lock_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::client {

absl::StatusOr<LockFile> LockFile::Acquire(const std::string& path) {
  return Lock(path, LOCK_EX);
}

absl::StatusOr<LockFile> LockFile::TryAcquire(const std::string& path) {
  return Lock(path, LOCK_EX | LOCK_NB);
}

absl::StatusOr<LockFile> LockFile::Lock(const std::string& path, int operation) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open lock file ", path, ": ", std::strerror(errno)));
  }
  int rc;
  do {
    rc = flock(fd, operation);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return absl::UnavailableError(absl::StrCat("lock file ", path, " is held by another process"));
    }
    return absl::InternalError(absl::StrCat("cannot lock ", path, ": ", std::strerror(err)));
  }
  return LockFile(path, fd);
}

LockFile::LockFile(LockFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

LockFile& LockFile::operator=(LockFile&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

LockFile::~LockFile() { Release(); }

void LockFile::Release() {
  // Closing the only descriptor of the open file description drops the lock.
  // The file itself stays: unlinking it would let a third client lock a new
  // inode while a second one still waits on the old one.
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace raw::client
