// Small whole-file reads and atomic writes for the package store's own
// files (manifests, alias indexes). Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw::packages {

// Writes `text` to `path` atomically (a temporary file beside it, fsync,
// rename), mode 0600; creates the directory if needed.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text);

// Reads the file at `path` whole, never through a symlink at its last
// component; kNotFound when it does not exist, kInvalidArgument when it is
// larger than `max_bytes`.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path, int64_t max_bytes);

}  // namespace raw::packages
