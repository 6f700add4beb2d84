#include "daemon/store/database_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace raw::store {
namespace {

bool IsOtherGeneration(absl::string_view name) {
  if (name == DatabaseFileName()) return false;
  if (name == "sessions.sqlite3" || name == "sessions.db") return true;
  constexpr absl::string_view kPrefix = "sessions-v";
  constexpr absl::string_view kSuffix = ".sqlite3";
  if (!absl::ConsumePrefix(&name, kPrefix) || !absl::ConsumeSuffix(&name, kSuffix)) {
    return false;
  }
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return absl::ascii_isdigit(c); });
}

}  // namespace

const char* DatabaseFileName() { return "sessions-v1.sqlite3"; }

std::vector<std::string> FindOldDatabases(const std::string& state_dir) {
  std::vector<std::string> found;
  std::error_code error;
  std::filesystem::directory_iterator it(state_dir, error);
  if (error) return found;
  for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) break;
    const std::string name = it->path().filename().string();
    std::error_code type_error;
    if (!IsOtherGeneration(name) || !it->is_regular_file(type_error)) continue;
    found.push_back((std::filesystem::path(state_dir) / name).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace raw::store
