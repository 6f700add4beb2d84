#include "clients/acp/request_params.h"

#include <algorithm>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::acp {

std::string StringParam(const Json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : "";
}

absl::StatusOr<std::string> BoundedStringParam(const Json& params, const char* key,
                                               size_t max_bytes) {
  auto it = params.find(key);
  if (it == params.end() || !it->is_string()) return "";
  // Measured in place: a string too long is never copied.
  if (it->get_ref<const std::string&>().size() > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", key, "\" is longer than ", max_bytes, " bytes"));
  }
  return it->get<std::string>();
}

absl::StatusOr<std::string> CwdParam(const Json& params, bool required) {
  absl::StatusOr<std::string> cwd = BoundedStringParam(params, "cwd", kMaxCwdBytes);
  if (!cwd.ok()) return cwd.status();
  if (std::any_of(cwd->begin(), cwd->end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    return absl::InvalidArgumentError(
        "\"cwd\" holds a control character (such as NUL or a line break), which raw-acp does "
        "not take in a directory name");
  }
  if (required && (cwd->empty() || !std::filesystem::path(*cwd).is_absolute())) {
    return absl::InvalidArgumentError("\"cwd\" must be an absolute path");
  }
  return cwd;
}

}  // namespace raw::acp
