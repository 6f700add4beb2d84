// FieldReader: reads one JSON object of config.json that sits at a known
// path, checking its keys and the type and range of each value. Every problem
// is appended to a caller-owned list instead of stopping at the first, so one
// run of the loader reports all of them.
//
// Ownership: borrows the JSON value and the problem list; both must outlive
// the reader. Not thread-safe (one reader per parse, on one thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

// Appends `key` to a JSON path: ("models", "flash") -> "models.flash". A key
// that is not plain (letters, digits, '_', '.', '-', '$') is quoted:
// models["my model"]. An empty parent yields the key alone.
std::string JoinPath(absl::string_view parent, absl::string_view key);
// ("agents.coder.tools.use", 2) -> "agents.coder.tools.use[2]".
std::string IndexPath(absl::string_view parent, size_t index);

// Describes a value for "got ..." in messages: strings and numbers as JSON
// (long strings shortened), "an object", "an array", "null", true/false.
std::string DescribeValue(const Json& value);

// True for model and agent names: ^[A-Za-z0-9_.-]+$.
bool IsValidName(absl::string_view name);
// A character of such a name: letters, digits, '_', '.' and '-'.
bool IsNameChar(char c);

// "a, b, c"; used for "(expected one of: ...)" and "(defined: ...)" lists.
// The second form ("none" when empty) names at most the first 20, each cut
// to 64 bytes, then says how many more there are ("... and 12 more").
std::string JoinNames(std::span<const absl::string_view> names);
std::string JoinNames(const std::vector<std::string>& names);

class FieldReader {
 public:
  // Records "expected an object" at `path` unless `value` is an object; the
  // accessors of such a reader report nothing and return nullopt.
  FieldReader(const Json& value, std::string path, std::vector<ConfigProblem>& problems);

  bool is_object() const { return object_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string PathOf(absl::string_view key) const { return JoinPath(path_, key); }

  // Records a problem at PathOf(key), or at path() when `key` is empty;
  // nothing once the list is full (ProblemsFull).
  void Report(absl::string_view key, std::string message);

  // Records "unknown key (expected one of: ...)" for every other key.
  void RejectUnknownKeys(std::span<const absl::string_view> known);

  // The value under `key`, or nullptr when absent (or not an object).
  const Json* Find(absl::string_view key) const;

  // Records "required key is missing (expected <what>)" when `key` is absent.
  void Require(absl::string_view key, absl::string_view what);

  // The accessors below return nullopt when the key is absent or its value
  // is invalid; an invalid value is recorded, an absent one is not.

  // Any string, including "".
  std::optional<std::string> String(absl::string_view key);
  // A string with at least one non-space character.
  std::optional<std::string> NonEmptyString(absl::string_view key, absl::string_view what);
  // One of `allowed`, exactly.
  std::optional<std::string> OneOf(absl::string_view key,
                                   std::span<const absl::string_view> allowed);
  // An integer in [min, max] (min >= 0). Floats such as 10.0 are refused.
  std::optional<int64_t> Integer(absl::string_view key, int64_t min, int64_t max);
  // true or false.
  std::optional<bool> Boolean(absl::string_view key);
  // A number of seconds in (0, max_seconds], returned in milliseconds (at
  // least 1).
  std::optional<int64_t> SecondsAsMillis(absl::string_view key, int64_t max_seconds);

 private:
  const Json* object_ = nullptr;
  std::string path_;
  std::vector<ConfigProblem>& problems_;
};

}  // namespace raw::config
