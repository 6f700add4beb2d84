#include "daemon/tools/builtin/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "daemon/tools/builtin/checked_open.h"

namespace raw::tools::builtin {
namespace {

absl::Status Errno(const std::string& what, const std::string& path, int err) {
  return absl::InternalError(absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(err)));
}

bool WriteAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

mode_t NewFileMode() {
  mode_t mask = 022;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      mask = static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8)) & 0777;
      break;
    }
  }
  return 0666 & ~mask;
}

absl::Status ReplaceFileAtomically(const std::string& target, std::string_view content,
                                   mode_t mode) {
  namespace fs = std::filesystem;
  // Every step is relative to this one directory, opened without following
  // a symlink: a link swapped into the path meanwhile cannot send the write
  // elsewhere, and a link at `target` itself is replaced, never written
  // through.
  absl::StatusOr<OpenedFile> dir = OpenDirectory(fs::path(target).parent_path().string());
  if (!dir.ok()) return dir.status();
  return ReplaceFileAtomicallyAt(dir->handle.get(), fs::path(target).filename().string(), target,
                                 content, mode);
}

absl::Status ReplaceFileAtomicallyAt(int dir_fd, const std::string& name, const std::string& target,
                                     std::string_view content, mode_t mode) {
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
    tmp = absl::StrCat(".", name, ".raw-tmp-", NewId());
    fd = openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const int err = errno;
    return Errno("create a temporary file in", std::filesystem::path(target).parent_path().string(),
                 err);
  }
  auto fail = [&](const std::string& what, int err) {
    close(fd);
    unlinkat(dir_fd, tmp.c_str(), 0);
    return Errno(what, target, err);
  };
  if (!WriteAll(fd, content)) return fail("write", errno);
  if (fchmod(fd, mode) != 0) return fail("set the mode of", errno);
  if (fsync(fd) != 0) return fail("flush", errno);
  if (close(fd) != 0) {
    int err = errno;
    unlinkat(dir_fd, tmp.c_str(), 0);
    return Errno("write", target, err);
  }
  if (renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0) {
    int err = errno;
    unlinkat(dir_fd, tmp.c_str(), 0);
    return Errno("replace", target, err);
  }
  return absl::OkStatus();
}

}  // namespace raw::tools::builtin
