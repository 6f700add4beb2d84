// ConfigFileCache: LoadConfigFile for a daemon that loads its config at
// every turn (so that an edit applies to the next one) and would otherwise
// parse the same bytes each time. The file is read at every Load; it is
// parsed again only when its bytes, its path, or the home and working
// directories its paths are resolved against differ from the last
// successful parse. Parsing is a function of exactly those (ParseConfig does
// no I/O), so a cached result is the one a parse would give.
//
// Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/config/config.h"

namespace raw::config {

class ConfigFileCache {
 public:
  // What LoadConfigFile(path) returns.
  absl::StatusOr<Config> Load(const std::string& path);

 private:
  struct Entry {
    std::string path;
    std::string text;
    std::string config_dir;
    std::string home_dir;
    Config config;
  };

  absl::Mutex mu_;
  std::optional<Entry> last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::config
