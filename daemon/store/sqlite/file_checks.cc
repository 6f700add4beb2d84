#include "daemon/store/sqlite/file_checks.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/logging.h"

namespace raw::store {
namespace {

absl::Status Refuse(const std::string& file, const std::string& what) {
  return absl::FailedPreconditionError(absl::StrCat(
      "the session database file ", file, " ", what,
      "; rawd opens it only as a regular file of its own user with one name. Move it aside "
      "(and check who can write to its directory), then start rawd again"));
}

// One file: `must_exist` for the database itself, which is open.
absl::Status CheckFile(const std::string& file, bool must_exist) {
  struct stat st {};
  if (lstat(file.c_str(), &st) != 0) {
    if (errno == ENOENT && !must_exist) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot check the session database file ", file, ": ", std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) return Refuse(file, "is a symbolic link");
  if (!S_ISREG(st.st_mode)) return Refuse(file, "is not a regular file");
  if (st.st_uid != geteuid()) {
    return Refuse(file, absl::StrCat("belongs to user id ", st.st_uid, ", not to rawd's user id ",
                                     geteuid()));
  }
  if (st.st_nlink != 1) {
    return Refuse(file, absl::StrCat("has ", st.st_nlink, " names (hard links)"));
  }
  if ((st.st_mode & 077) != 0) {
    // Only the others' bits go: a file the user made read-only stays so.
    const mode_t private_mode = st.st_mode & 0700;
    if (chmod(file.c_str(), private_mode) != 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "the session database file %s is open to other users (mode %04o) and could not be "
          "made private: %s",
          file, st.st_mode & 0777, std::strerror(errno)));
    }
    RAW_LOG(Warning) << absl::StrFormat(
        "the session database file %s was open to other users (mode %04o); made private "
        "(mode %04o)",
        file, st.st_mode & 0777, private_mode);
  }
  return absl::OkStatus();
}

}  // namespace

bool IsDatabaseFilePath(const std::string& path) {
  return !path.empty() && path != ":memory:" && path.rfind("file:", 0) != 0;
}

absl::StatusOr<std::string> PathToOpen(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Refuse(path, "is a symbolic link");
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  // A directory that does not resolve is left to SQLite, which says it
  // cannot open the file.
  if (realpath(dir.c_str(), resolved) == nullptr) return path;
  const std::string base(resolved);
  return base == "/" ? "/" + name : absl::StrCat(base, "/", name);
}

absl::Status CheckDatabaseFiles(const std::string& path) {
  if (absl::Status main = CheckFile(path, /*must_exist=*/true); !main.ok()) return main;
  for (const char* suffix : {"-wal", "-shm"}) {
    if (absl::Status side = CheckFile(path + suffix, /*must_exist=*/false); !side.ok()) {
      return side;
    }
  }
  return absl::OkStatus();
}

}  // namespace raw::store
