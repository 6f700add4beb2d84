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
  fs::path parent = fs::path(target).parent_path();
  std::string tmp =
      (parent / absl::StrCat(".", fs::path(target).filename().string(), ".raw-tmp-XXXXXX"))
          .string();
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Errno("create a temporary file in", parent.string(), errno);
  auto fail = [&](const std::string& what, int err) {
    close(fd);
    unlink(tmp.c_str());
    return Errno(what, target, err);
  };
  if (!WriteAll(fd, content)) return fail("write", errno);
  if (fchmod(fd, mode) != 0) return fail("set the mode of", errno);
  if (fsync(fd) != 0) return fail("flush", errno);
  if (close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Errno("write", target, err);
  }
  if (rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return Errno("replace", target, err);
  }
  return absl::OkStatus();
}

}  // namespace raw::tools::builtin
