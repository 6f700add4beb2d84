#include "daemon/config/config_path.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "common/paths.h"

namespace raw::config {

absl::StatusOr<std::string> ResolveConfigPath(const std::string& path,
                                              const ParseContext& context) {
  if (path.empty()) return absl::InvalidArgumentError("expected a path, got \"\"");
  if (path == "~" || absl::StartsWith(path, "~/")) {
    if (context.home_dir.empty()) {
      return absl::InvalidArgumentError(
          "\"~/\" stands for the home directory, and HOME is not set (use an absolute path)");
    }
    if (path.size() <= 2) return AbsolutePath(context.home_dir, "/");
    return AbsolutePath(path.substr(2), context.home_dir);
  }
  if (path[0] == '~') {
    return absl::InvalidArgumentError(
        "only \"~/\" (the home directory) is expanded; \"~user\" is not (use an absolute path)");
  }
  if (context.config_dir.empty()) {
    return AbsolutePath(path, DefaultParseContext().config_dir);
  }
  return AbsolutePath(path, context.config_dir);
}

}  // namespace raw::config
