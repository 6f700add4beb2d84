// LockFile: an exclusive flock(2) on a file, held for the object's lifetime.
//
// Clients take it on "<socket>.lock" while they start the daemon, so that two
// clients starting at the same moment start one daemon, not two. The lock
// belongs to the open file description: it is released when the object is
// destroyed (or when the process dies, however it dies), and it is never
// inherited by child processes (the descriptor is close-on-exec).
//
// Thread-safety: a LockFile is not shared between threads; moving it
// transfers the lock. Two LockFile objects on the same path conflict even
// inside one process.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace raw::client {

class LockFile {
 public:
  // Creates `path` (mode 0600) when missing and blocks until the exclusive
  // lock is held.
  static absl::StatusOr<LockFile> Acquire(const std::string& path);

  // Like Acquire, but fails with kUnavailable at once when another holder
  // has the lock.
  static absl::StatusOr<LockFile> TryAcquire(const std::string& path);

  LockFile(LockFile&& other) noexcept;
  LockFile& operator=(LockFile&& other) noexcept;
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile();

  const std::string& path() const { return path_; }

 private:
  LockFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  static absl::StatusOr<LockFile> Lock(const std::string& path, int operation);
  void Release();

  std::string path_;
  int fd_ = -1;
};

}  // namespace raw::client
