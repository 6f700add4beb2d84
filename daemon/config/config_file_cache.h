// ConfigFileCache: LoadConfigFile for a daemon that loads its config at
// every turn (so that an edit applies to the next one) and would otherwise
// parse the same bytes each time. The file is read at every Load; it is
// parsed again only when its bytes, its path, or the home and working
// directories its paths are resolved against differ from the last parse,
// whether that succeeded or not (an invalid file gives the same error
// again without a parse). Parsing is a function of exactly those
// (ParseConfig does no I/O), so a cached result is the one a parse would
// give.
//
// A path with no file gives the built-in defaults, until a file has been
// read there: from then on its absence is an error (kFailedPrecondition),
// never the defaults, which would drop the file's rules, hooks and approval
// modes while the daemon runs.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/config/config.h"

namespace raw::config {

class ConfigFileCache {
 public:
  // What LoadConfigFile(path) returns.
  absl::StatusOr<Config> Load(const std::string& path);

  // What the last successful Load of `path` returned (the built-in defaults
  // included), or nullopt when none succeeded yet. For what must be shown
  // while the file does not load (an edit in progress), such as when a
  // session expires: the last valid value, not a made-up one.
  std::optional<Config> LastLoaded(const std::string& path);

  // How many times Load parsed a file (not counting reuses).
  int64_t parses();

 private:
  // Load, without recording the result for LastLoaded.
  absl::StatusOr<Config> ReadOrReuse(const std::string& path);

  struct Entry {
    std::string path;
    std::string text;
    std::string config_dir;
    std::string home_dir;
    absl::StatusOr<Config> config;
  };

  absl::Mutex mu_;
  // Paths a file was read from (parsed or not).
  std::set<std::string> seen_paths_ ABSL_GUARDED_BY(mu_);
  std::optional<Entry> last_ ABSL_GUARDED_BY(mu_);
  int64_t parses_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<std::pair<std::string, Config>> last_loaded_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::config
