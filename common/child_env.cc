#include "common/child_env.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace raw {

absl::StatusOr<std::vector<std::string>> ChildEnvironment(
    const std::set<std::string>& withheld, const std::map<std::string, std::string>& overrides) {
  for (const auto& [key, value] : overrides) {
    if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid environment variable name \"", key, "\""));
    }
    if (value.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment variable ", key, " contains a NUL byte"));
    }
  }
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string key(entry.substr(0, entry.find('=')));
    if (overrides.contains(key) || withheld.contains(key)) continue;
    env.emplace_back(entry);
  }
  for (const auto& [key, value] : overrides) env.push_back(absl::StrCat(key, "=", value));
  return env;
}

std::string AbsolutePathEntries(std::string_view path) {
  std::string kept;
  for (absl::string_view dir : absl::StrSplit(absl::string_view(path.data(), path.size()), ':')) {
    if (dir.empty() || dir[0] != '/') continue;
    if (!kept.empty()) kept += ':';
    kept.append(dir.data(), dir.size());
  }
  return kept.empty() ? "/bin:/usr/bin" : kept;
}

}  // namespace raw
