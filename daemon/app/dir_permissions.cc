#include "daemon/app/dir_permissions.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::app {

std::vector<std::string> DirPermissionWarnings(const std::vector<TrustedDir>& dirs) {
  std::vector<std::string> warnings;
  for (const TrustedDir& dir : dirs) {
    struct stat info;
    if (stat(dir.path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) continue;
    const bool group = (info.st_mode & S_IWGRP) != 0;
    const bool others = (info.st_mode & S_IWOTH) != 0;
    if (!group && !others) continue;
    warnings.push_back(absl::StrCat(
        "the ", dir.what, " ", dir.path, " is writable by ",
        group && others ? "group and others" : group ? "its group" : "others",
        absl::StrFormat(" (mode %04o)", info.st_mode & 07777),
        "; anyone who can write there can replace files rawd opens: run chmod go-w ",
        dir.path));
  }
  return warnings;
}

}  // namespace raw::app
