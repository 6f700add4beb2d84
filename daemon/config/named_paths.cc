#include "daemon/config/named_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/paths.h"

namespace raw::config {

std::string SkillBaseDir(const Config& config) {
  if (!config.source_path.empty()) return Dirname(config.source_path);
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  return ec ? std::string("/") : cwd.string();
}

std::vector<ConfigProblem> CheckNamedPaths(const Config& config) {
  std::vector<ConfigProblem> problems;
  const std::string base = SkillBaseDir(config);
  for (size_t i = 0; i < config.skill_dirs.size(); ++i) {
    const std::string& entry = config.skill_dirs[i];
    const std::string path = AbsolutePath(entry, base);
    const std::string where = absl::StrCat("\"", entry, "\" (", path, ")");
    struct stat st;
    std::string what;
    if (stat(path.c_str(), &st) != 0) {
      what = errno == ENOENT ? absl::StrCat(where, " does not exist")
                             : absl::StrCat(where, " cannot be read: ", std::strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
      what = absl::StrCat(where, " is not a directory");
    } else {
      continue;
    }
    problems.push_back({absl::StrCat("skill_dirs[", i, "]"),
                        absl::StrCat(what,
                                     "; every turn of an agent that selects skills would "
                                     "fail")});
  }
  return problems;
}

}  // namespace raw::config
