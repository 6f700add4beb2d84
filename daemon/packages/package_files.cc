#include "daemon/packages/package_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "common/paths.h"
#include "common/status_macros.h"

namespace raw::packages {

absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  RETURN_IF_ERROR(EnsureDir(Dirname(path)));
  // A new file of a name no one can guess (mkostemp: O_EXCL, mode 0600),
  // never one found there, so a symlink planted beside `path` is not
  // written through.
  std::string tmp = absl::StrCat(path, ".tmp.XXXXXX");
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", tmp));
  absl::Status status;
  std::string_view rest = text;
  while (!rest.empty() && status.ok()) {
    ssize_t n = write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", tmp));
    if (n > 0) rest.remove_prefix(static_cast<size_t>(n));
  }
  if (status.ok() && fsync(fd) != 0) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", tmp));
  }
  close(fd);
  if (status.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot replace ", path));
  }
  if (!status.ok()) unlink(tmp.c_str());
  return status;
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, int64_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, " does not exist"));
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", path));
  }
  std::string text;
  char buffer[16384];
  absl::Status status;
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", path));
      break;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > max_bytes) {
      status = absl::InvalidArgumentError(absl::StrCat(path, " is larger than ", max_bytes, " bytes"));
      break;
    }
  }
  close(fd);
  RETURN_IF_ERROR(status);
  return text;
}

}  // namespace raw::packages
