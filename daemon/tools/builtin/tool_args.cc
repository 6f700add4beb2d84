#include "daemon/tools/builtin/tool_args.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "absl/strings/str_cat.h"
#include "daemon/tools/policy/rule_path.h"

namespace raw::tools::builtin {

size_t FileReadCap(int64_t configured) {
  constexpr int64_t kDefault = 256 * 1024;
  return static_cast<size_t>(configured > 0 ? configured : kDefault);
}

absl::Status CheckArgumentObject(const Json& args,
                                 std::initializer_list<std::string_view> allowed) {
  if (!args.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("arguments must be a JSON object, got ", args.type_name()));
  }
  for (const auto& item : args.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || item.key() == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown argument \"", item.key(), "\""));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RequiredString(const Json& args, const std::string& key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) {
    return absl::InvalidArgumentError(absl::StrCat("missing required argument \"", key, "\""));
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument \"", key, "\" must be a string, got ", it->type_name()));
  }
  return it->get<std::string>();
}

absl::StatusOr<std::optional<int64_t>> OptionalInteger(const Json& args, const std::string& key,
                                                       int64_t min) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<int64_t>();
  int64_t value = 0;
  if (it->is_number_integer()) {
    if (it->is_number_unsigned() &&
        it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat("argument \"", key, "\" is too large"));
    }
    value = it->get<int64_t>();
  } else if (it->is_number_float()) {
    double d = it->get<double>();
    // Some models write integers as 3.0; accept those, refuse 3.5.
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument \"", key, "\" must be an integer, got ", it->dump()));
    }
    value = static_cast<int64_t>(d);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("argument \"", key, "\" must be an integer, got ", it->type_name()));
  }
  if (value < min) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument \"", key, "\" must be at least ", min, ", got ", value));
  }
  return std::optional<int64_t>(value);
}

absl::StatusOr<bool> OptionalBool(const Json& args, const std::string& key, bool fallback) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument \"", key, "\" must be a boolean, got ", it->type_name()));
  }
  return it->get<bool>();
}

absl::StatusOr<std::optional<std::string>> OptionalString(const Json& args,
                                                          const std::string& key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument \"", key, "\" must be a string, got ", it->type_name()));
  }
  return std::optional<std::string>(it->get<std::string>());
}

absl::StatusOr<std::string> ResolvePath(const std::string& cwd, const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("argument \"path\" is empty");
  if (path.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("argument \"path\" contains a NUL byte");
  }
  if (path[0] == '~') {
    return absl::InvalidArgumentError(absl::StrCat(
        "path \"", path, "\" starts with '~', which is not expanded; use an absolute path"));
  }
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(cwd) / p;
  std::string resolved = p.lexically_normal().string();
  // "dir/" normalizes to "dir/"; drop the trailing separator for messages.
  if (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();
  return resolved;
}

absl::StatusOr<std::string> TargetPath(const std::string& cwd, const std::string& raw_path,
                                       const std::optional<std::string>& judged_path) {
  absl::StatusOr<std::string> resolved = ResolvePath(cwd, raw_path);
  if (!resolved.ok()) return resolved.status();
  if (judged_path) return *judged_path;
  return policy::ResolveRulePath(cwd, *resolved);
}

std::string DisplayPath(const std::string& cwd, const std::string& path) {
  if (path == cwd) return ".";
  std::string base = cwd;
  if (base.empty() || base.back() != '/') base += '/';
  if (path.size() > base.size() && path.compare(0, base.size(), base) == 0) {
    return path.substr(base.size());
  }
  return path;
}

}  // namespace raw::tools::builtin
