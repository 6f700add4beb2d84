#include "daemon/config/config_file_cache.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

absl::StatusOr<Config> ConfigFileCache::Load(const std::string& path) {
  absl::StatusOr<Config> loaded = ReadOrReuse(path);
  if (loaded.ok()) {
    absl::MutexLock lock(&mu_);
    last_loaded_.emplace(path, *loaded);
  }
  return loaded;
}

std::optional<Config> ConfigFileCache::LastLoaded(const std::string& path) {
  absl::MutexLock lock(&mu_);
  if (!last_loaded_ || last_loaded_->first != path) return std::nullopt;
  return last_loaded_->second;
}

int64_t ConfigFileCache::parses() {
  absl::MutexLock lock(&mu_);
  return parses_;
}

absl::StatusOr<Config> ConfigFileCache::ReadOrReuse(const std::string& path) {
  ASSIGN_OR_RETURN(std::optional<std::string> text, ReadConfigText(path));
  if (!text) {
    absl::MutexLock lock(&mu_);
    if (seen_paths_.contains(path)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "config file ", path,
          " was read before and is gone now; rawd does not put its built-in defaults in the "
          "place of a config it has used, since they would drop its rules, hooks and approval "
          "modes: put the file back, or restart rawd to start from the built-in defaults"));
    }
    return LoadConfigFile(path);  // the built-in defaults, no parse
  }
  const ParseContext context = FileParseContext(path);
  {
    absl::MutexLock lock(&mu_);
    seen_paths_.insert(path);
    if (last_ && last_->path == path && last_->text == *text &&
        last_->config_dir == context.config_dir && last_->home_dir == context.home_dir) {
      return last_->config;
    }
  }
  absl::StatusOr<Config> parsed = ParseConfigFile(path, *text, context);
  absl::MutexLock lock(&mu_);
  ++parses_;
  // A failed parse is kept as well: an invalid file is loaded as often as a
  // valid one (every turn, every listing), and is as costly to parse again.
  last_ = Entry{path, *std::move(text), context.config_dir, context.home_dir, parsed};
  return parsed;
}

}  // namespace raw::config
