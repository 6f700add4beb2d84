// Tool arguments: the small checks every built-in handler applies to the
// JSON arguments the model sent, and path resolution against the session's
// working directory.
//
// The registry validates arguments against each tool's schema before a
// handler runs; handlers still check what they read, so a malformed call
// always becomes a clear error result and never an exception. Stateless;
// safe from any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::tools::builtin {

// The most bytes a file tool reads: tools.files.max_read_bytes when it is
// positive, else its default (256 KiB).
size_t FileReadCap(int64_t configured);

// OK when `args` is a JSON object whose keys are all in `allowed`.
absl::Status CheckArgumentObject(const Json& args,
                                 std::initializer_list<std::string_view> allowed);

// The string at `key`; an error when it is missing or not a string.
absl::StatusOr<std::string> RequiredString(const Json& args, const std::string& key);

// The integer at `key` (an integral number such as 3 or 3.0), nullopt when
// absent or null; an error when it is not an integer or is below `min`.
absl::StatusOr<std::optional<int64_t>> OptionalInteger(const Json& args, const std::string& key,
                                                       int64_t min);

// The boolean at `key`; `fallback` when absent or null, an error when it is
// not a boolean.
absl::StatusOr<bool> OptionalBool(const Json& args, const std::string& key, bool fallback);

// The string at `key`, nullopt when absent or null; an error when it is not
// a string.
absl::StatusOr<std::optional<std::string>> OptionalString(const Json& args,
                                                          const std::string& key);

// `path` made absolute against `cwd` and lexically normalized. Absolute
// paths are kept as they are: the working directory is not a boundary. A
// leading '~' is refused rather than silently taken as a directory name.
absl::StatusOr<std::string> ResolvePath(const std::string& cwd, const std::string& path);

// The path a file tool opens for its `path` argument `raw_path`:
// `ctx.judged_path` when the rules judged one, else ResolvePath's result
// with symlinks resolved as the rules resolve them (policy/rule_path.h).
absl::StatusOr<std::string> TargetPath(const std::string& cwd, const std::string& raw_path,
                                       const std::optional<std::string>& judged_path);

// `path` (absolute, normalized) as results show it: relative to `cwd` when
// it lies inside it ("src/a.cc"; "." for cwd itself), absolute otherwise.
std::string DisplayPath(const std::string& cwd, const std::string& path);

}  // namespace raw::tools::builtin
