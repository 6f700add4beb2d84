// Checked opens for the file tools: a file is opened exactly at the path
// the rules judged (an absolute path free of symlinks, policy/rule_path.h),
// so nothing swapped in after the judgement can redirect the call:
// - no symlink is followed anywhere on the path (openat2 with
//   RESOLVE_NO_SYMLINKS; on kernels without it, O_NOFOLLOW on the last
//   component), so a link planted in between is refused, not followed;
// - the opened file must be the one lstat saw just before (same device and
//   inode, compared with fstat), or the call is refused;
// - only regular files (and directories: the parent of a write, the root of
//   a walk) are opened, and never in a way that blocks: a FIFO or a device
//   is refused after lstat, and the open itself is O_NONBLOCK.
// What lies below an opened directory is reached relative to its
// descriptor (openat with O_NOFOLLOW), never by path again: see
// OpenOrCreateDirectory, ReadWholeRegularFileAt and file_walker.h.
// Errors are absl::Status with messages naming the path: kNotFound (no such
// file), kFailedPrecondition (a directory, a FIFO, a device: what it is),
// kPermissionDenied (a symlink or a swapped file in the way, named), others
// with strerror. Stateless; thread-safe.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace raw::tools::builtin {

// Owns a file descriptor; closes it on destruction.
class FileHandle {
 public:
  FileHandle() = default;
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle();
  FileHandle(FileHandle&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileHandle& operator=(FileHandle&& other) noexcept;
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int get() const { return fd_; }
  // Gives up ownership: the caller closes the descriptor.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct OpenedFile {
  FileHandle handle;
  struct stat info {};  // fstat of the opened file
};

// `path` opened read-only if it is a regular file reached without any
// symlink. `tool` ends messages about what the path is instead
// ("<path> is a FIFO (named pipe); read_file reads regular files").
absl::StatusOr<OpenedFile> OpenRegularFile(const std::string& path, const std::string& tool);

// The directory `path` opened (O_PATH) without following any symlink on
// the way, for creating and renaming files inside it (atomic_write.h).
absl::StatusOr<OpenedFile> OpenDirectory(const std::string& path);

// The directory `path` opened for reading its entries (O_RDONLY |
// O_DIRECTORY), checked like OpenRegularFile: where grep, glob and list_dir
// start their walk (file_walker.h).
absl::StatusOr<OpenedFile> OpenDirectoryToWalk(const std::string& path);

// The directory `path` (absolute) opened like OpenDirectory, after creating
// it and its missing parents (mode 0777 minus the umask) one component at a
// time, each relative to the descriptor of the one before (mkdirat, then
// openat with O_NOFOLLOW | O_DIRECTORY), so that no directory is created
// through a symlink: a link on the way is refused (kPermissionDenied, the
// message names it), whether it was there before or appeared meanwhile.
absl::StatusOr<OpenedFile> OpenOrCreateDirectory(const std::string& path);

// A descriptor of `path` opened with `flags` (plus O_CLOEXEC, O_NOFOLLOW
// and, without O_PATH, O_NONBLOCK) and no symlink followed on the way. Low level: no identity
// or type check; sets errno and returns -1 on failure.
int OpenWithoutSymlinks(const std::string& path, int flags);

// The regular file `name` in the directory open at `dir_fd` read whole into
// `text`, as a walk reaches it. Opened with O_NOFOLLOW and without blocking,
// and checked after the open, so that a symlink, FIFO or device swapped in
// since the caller looked is refused, never followed or waited on. False
// when it is not a regular file, holds more than `max_bytes`, or cannot be
// read.
bool ReadWholeRegularFileAt(int dir_fd, const char* name, int64_t max_bytes, std::string& text);

// The file open at `fd` read from its current offset to its end into
// `text`; false when it holds more than `max_bytes` or a read fails.
bool ReadToEnd(int fd, int64_t max_bytes, std::string& text);

// OpenWithoutSymlinks where openat2 is missing (kernels before 5.6) or
// refused (a seccomp filter): absolute `path` opened one component at a
// time from "/", each directory with O_NOFOLLOW, so that a link anywhere on
// the path is refused (ELOOP), not only at its end. `flags` as given (the
// caller adds O_NOFOLLOW for the last component).
int OpenComponentwise(const std::string& path, int flags);

}  // namespace raw::tools::builtin
