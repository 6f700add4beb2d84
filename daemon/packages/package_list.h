// The listing of the packages of a config file's index, apart from the rest
// of PackageOps (package_ops.h) because the daemon lists packages but never
// installs them: a program that links only this file does not load the
// archive library (libarchive, and ICU behind it).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/http/http_client.h"
#include "daemon/packages/package_index.h"
#include "daemon/packages/package_store.h"

namespace raw::packages {

// What every package operation works on.
struct PackageContext {
  const PackageStore& store;
  std::string config_path;            // absolute; its index is used
  http::HttpClient* http = nullptr;   // for https sources; null = refused
};

// One alias of the index, with what its store entry exports.
struct ListedPackage {
  std::string alias;
  IndexEntry entry;
  // The manifest's exports, when the store entry could be read.
  std::vector<std::string> exports;
  std::string problem;  // why it could not be read, else ""
};
absl::StatusOr<std::vector<ListedPackage>> List(const PackageContext& ctx);

}  // namespace raw::packages
