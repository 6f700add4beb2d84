// PackageIndex: the aliases one config file gives to installed packages,
// stored beside it (docs/packages.md): for <dir>/config.json it is
// <dir>/packages.json, for any other <dir>/<name>.json it is
// <dir>/<name>.packages.json. Two configs can so give one alias different
// hashes. The file:
//   {"packages": {"<alias>": {"hash": "<sha256>", "source": "<what was
//    installed>", "name": "<manifest name>", "version": "..."}}}
// Plain value; Load and Save do the I/O (Save atomically).
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw::packages {

struct IndexEntry {
  std::string hash;
  std::string source;
  std::string name;
  std::string version;
  bool operator==(const IndexEntry&) const = default;
};

struct PackageIndex {
  std::string path;  // the index file
  std::map<std::string, IndexEntry> aliases;

  // The index file of the config file at `config_path`.
  static std::string PathForConfig(const std::string& config_path);
  // A missing file is an empty index; a damaged one is kDataLoss naming it.
  static absl::StatusOr<PackageIndex> Load(const std::string& path);
  absl::Status Save() const;
};

}  // namespace raw::packages
