#include "daemon/app/dir_permissions.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::app {

std::vector<std::string> DirTrustWarnings(const TrustedDir& dir, const struct stat& info,
                                          uid_t uid) {
  std::vector<std::string> warnings;
  const bool group = (info.st_mode & S_IWGRP) != 0;
  const bool others = (info.st_mode & S_IWOTH) != 0;
  if (group || others) {
    warnings.push_back(absl::StrCat(
        "the ", dir.what, " ", dir.path, " is writable by ",
        group && others ? "group and others"
        : group         ? "its group"
                        : "others",
        absl::StrFormat(" (mode %04o)", info.st_mode & 07777),
        "; anyone who can write there can replace files rawd opens: run chmod go-w ", dir.path));
  }
  // Its owner may rename a file of their own over the config, whatever
  // the mode bits say.
  if (info.st_uid != uid && info.st_uid != 0) {
    warnings.push_back(absl::StrCat("the ", dir.what, " ", dir.path,
                                    " belongs to another user (uid ", info.st_uid,
                                    "), who can replace the files rawd opens there"));
  }
  return warnings;
}

std::vector<std::string> DirPermissionWarnings(const std::vector<TrustedDir>& dirs, uid_t uid) {
  std::vector<std::string> warnings;
  for (const TrustedDir& dir : dirs) {
    struct stat info;
    if (stat(dir.path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) continue;
    for (std::string& warning : DirTrustWarnings(dir, info, uid)) {
      warnings.push_back(std::move(warning));
    }
  }
  return warnings;
}

}  // namespace raw::app
