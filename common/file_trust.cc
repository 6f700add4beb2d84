#include "common/file_trust.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw {

std::vector<std::string> FileTrustWarningsFor(const std::string& what, const std::string& path,
                                              const struct stat& info, uid_t uid) {
  std::vector<std::string> warnings;
  const bool group = (info.st_mode & S_IWGRP) != 0;
  const bool others = (info.st_mode & S_IWOTH) != 0;
  if (group || others) {
    warnings.push_back(absl::StrCat(
        what, " ", path, " is writable by ",
        group && others ? "group and others"
        : group         ? "its group"
                        : "others",
        absl::StrFormat(" (mode %04o)", info.st_mode & 07777),
        "; anyone who can write it decides which commands rawd runs: run chmod go-w ", path));
  }
  if (info.st_uid != uid && info.st_uid != 0) {
    warnings.push_back(absl::StrCat(what, " ", path, " belongs to another user (uid ", info.st_uid,
                                    "), who decides which commands rawd runs as you"));
  }
  return warnings;
}

std::vector<std::string> FileTrustWarnings(const std::string& what, const std::string& path,
                                           uid_t uid) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return {};
  return FileTrustWarningsFor(what, path, info, uid);
}

}  // namespace raw
