#include "daemon/tools/builtin/checked_open.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace raw::tools::builtin {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

// The first component of absolute `path` that is a symlink now ("/a/b"
// for "/a/b/c" when b is a link); empty when there is none (any more). Only
// for error messages: it costs an lstat per component.
std::string FirstSymlinkOn(const std::string& path) {
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    absl::StrAppend(&prefix, "/", part);
    struct stat info;
    if (lstat(prefix.c_str(), &info) != 0) break;
    if (S_ISLNK(info.st_mode)) return prefix;
  }
  return "";
}

absl::Status OpenError(const std::string& path, int err) {
  if (err == ENOENT || err == ENOTDIR) {
    return absl::NotFoundError(absl::StrCat("file not found: ", path));
  }
  if (err == ELOOP || err == EXDEV) {
    const std::string link = FirstSymlinkOn(path);
    return absl::PermissionDeniedError(absl::StrCat(
        "refused to open ", path, ": a symlink is now on its path",
        link.empty() ? "" : absl::StrCat(", at ", link),
        " (it was not there when the call was judged); the file tools never follow a link that "
        "appeared after the rules saw the path"));
  }
  return absl::UnknownError(absl::StrCat("cannot open ", path, ": ", std::strerror(err)));
}

// lstat, then open, then fstat: the file opened is the one examined.
absl::StatusOr<OpenedFile> OpenChecked(const std::string& path, int flags,
                                       bool want_directory, const std::string& tool) {
  struct stat before;
  if (lstat(path.c_str(), &before) != 0) return OpenError(path, errno);
  if (S_ISLNK(before.st_mode)) return OpenError(path, ELOOP);
  if (want_directory ? !S_ISDIR(before.st_mode) : !S_ISREG(before.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", KindOf(before.st_mode), tool.empty() ? "" : "; ", tool));
  }
  OpenedFile opened;
  opened.handle = FileHandle(OpenWithoutSymlinks(path, flags));
  if (opened.handle.get() < 0) return OpenError(path, errno);
  if (fstat(opened.handle.get(), &opened.info) != 0) return OpenError(path, errno);
  if (opened.info.st_dev != before.st_dev || opened.info.st_ino != before.st_ino) {
    return absl::PermissionDeniedError(absl::StrCat(
        "refused to open ", path, ": it was replaced by another file while being opened"));
  }
  return opened;
}

}  // namespace

FileHandle::~FileHandle() {
  if (fd_ >= 0) close(fd_);
}

FileHandle& FileHandle::operator=(FileHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

int OpenWithoutSymlinks(const std::string& path, int flags) {
  // openat2 refuses O_PATH with any flag but these (open(2) ignores them).
  flags |= (flags & O_PATH) != 0 ? O_CLOEXEC | O_NOFOLLOW : O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW;
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof(how));
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
  // Kernels before 5.6, or a seccomp filter that refuses openat2.
  return OpenComponentwise(path, flags);
}

bool ReadToEnd(int fd, int64_t max_bytes, std::string& text) {
  text.clear();
  char buffer[64 * 1024];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0;
    text.append(buffer, static_cast<size_t>(n));
    // A file that grows while it is read stops at the limit.
    if (static_cast<int64_t>(text.size()) > max_bytes) return false;
  }
}

bool ReadWholeRegularFileAt(int dir_fd, const char* name, int64_t max_bytes, std::string& text) {
  FileHandle file(openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (file.get() < 0) return false;
  struct stat info;
  if (fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_size > max_bytes) {
    return false;
  }
  return ReadToEnd(file.get(), max_bytes, text);
}

int OpenComponentwise(const std::string& path, int flags) {
  if (path.empty() || path[0] != '/') {
    errno = EINVAL;
    return -1;
  }
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  auto close_keeping_errno = [](int fd) {
    const int error = errno;
    close(fd);
    errno = error;
  };
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const char* name = parts[i].c_str();
    int next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      // O_PATH | O_NOFOLLOW opens a link itself, which O_DIRECTORY then
      // refuses as ENOTDIR: say what openat2 would have said.
      struct stat info;
      if (errno == ENOTDIR && fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(info.st_mode)) {
        errno = ELOOP;
      }
      close_keeping_errno(dir);
      return -1;
    }
    close(dir);
    dir = next;
  }
  int fd = openat(dir, parts.empty() ? "." : parts.back().c_str(), flags);
  close_keeping_errno(dir);
  return fd;
}

absl::StatusOr<OpenedFile> OpenRegularFile(const std::string& path, const std::string& tool) {
  return OpenChecked(path, O_RDONLY, /*want_directory=*/false, tool);
}

absl::StatusOr<OpenedFile> OpenDirectory(const std::string& path) {
  return OpenChecked(path, O_PATH | O_DIRECTORY, /*want_directory=*/true, "");
}

absl::StatusOr<OpenedFile> OpenDirectoryToWalk(const std::string& path) {
  return OpenChecked(path, O_RDONLY | O_DIRECTORY, /*want_directory=*/true, "");
}

absl::StatusOr<OpenedFile> OpenOrCreateDirectory(const std::string& path) {
  // Most writes go to a directory that exists: one checked open.
  absl::StatusOr<OpenedFile> existing = OpenDirectory(path);
  if (!absl::IsNotFound(existing.status())) return existing;
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("not an absolute path: ", path));
  }
  auto fail = [&path](int err) {
    return absl::UnknownError(
        absl::StrCat("cannot create directory ", path, ": ", std::strerror(err)));
  };
  constexpr int kFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  OpenedFile opened;
  opened.handle = FileHandle(open("/", kFlags));
  if (opened.handle.get() < 0) return fail(errno);
  std::string reached;  // the path of opened.handle
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    const std::string name(part);
    absl::StrAppend(&reached, "/", name);
    const int dir = opened.handle.get();
    int next = openat(dir, name.c_str(), kFlags);
    if (next < 0 && errno == ENOENT) {
      if (mkdirat(dir, name.c_str(), 0777) != 0 && errno != EEXIST) return fail(errno);
      next = openat(dir, name.c_str(), kFlags);
    }
    if (next < 0) {
      const int err = errno;
      // O_PATH | O_NOFOLLOW opens a link itself, which O_DIRECTORY then
      // refuses as ENOTDIR: say what is in the way.
      struct stat info;
      if (err != ENOTDIR || fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return fail(err);
      }
      if (S_ISLNK(info.st_mode)) {
        return absl::PermissionDeniedError(absl::StrCat(
            "refused to create directory ", path, ": ", reached,
            " is a symlink; directories are created only inside real directories, never "
            "through a link"));
      }
      return absl::FailedPreconditionError(absl::StrCat("cannot create directory ", path, ": ",
                                                        reached, " is ", KindOf(info.st_mode)));
    }
    opened.handle = FileHandle(next);
  }
  if (fstat(opened.handle.get(), &opened.info) != 0) return fail(errno);
  return opened;
}

}  // namespace raw::tools::builtin
