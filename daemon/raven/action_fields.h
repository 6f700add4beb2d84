// Reading one raven_task action or a nested object of it: typed, bounded
// field access that refuses unknown keys and names the offending field in
// every error (InvalidArgument "<path>: <what>"). Internal to the engine.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/status_macros.h"
#include "daemon/raven/domain.h"

namespace raw::raven {

inline absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// Reads the fields of one action or nested object, refusing unknown keys.
class Fields {
 public:
  Fields(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}

  absl::Status Only(const std::vector<std::string>& allowed) const {
    if (!j_.is_object())
      return FieldError(where_.empty() ? "arguments" : where_, "must be an object");
    std::vector<std::string> unknown;
    for (const auto& [key, value] : j_.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) unknown.push_back(key);
    }
    if (unknown.empty()) return absl::OkStatus();
    return FieldError(where_.empty() ? "arguments" : where_,
                      absl::StrCat("contains unknown field(s): ", absl::StrJoin(unknown, ", "),
                                   ". Accepted field(s): ", absl::StrJoin(allowed, ", ")));
  }
  bool Has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string Path(const char* key) const {
    return where_.empty() ? key : absl::StrCat(where_, ".", key);
  }

  absl::StatusOr<std::string> Text(const char* key, size_t max) const {
    if (!Has(key)) return FieldError(Path(key), "is required");
    ASSIGN_OR_RETURN(std::optional<std::string> v, OptionalText(key, max));
    // Has(key) makes OptionalText answer a value or an error, never nullopt.
    if (v.has_value()) return *v;
    return FieldError(Path(key), "is required");
  }
  absl::StatusOr<std::optional<std::string>> OptionalText(const char* key, size_t max) const {
    if (!Has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) return FieldError(Path(key), "must be a string");
    std::string s = TrimText(j_.at(key).get<std::string>());
    if (s.empty()) return FieldError(Path(key), "must not be empty");
    if (CodePoints(s) > max) {
      return FieldError(Path(key), absl::StrCat("is longer than ", max, " characters"));
    }
    return s;
  }
  absl::StatusOr<std::string> Id(const char* key) const {
    ASSIGN_OR_RETURN(std::string s, Text(key, 64));
    if (!ValidId(s)) {
      return FieldError(Path(key),
                        "must be a letter or digit followed by up to 63 letters, "
                        "digits, '.', '_' or '-'");
    }
    return s;
  }
  template <typename E>
  absl::StatusOr<std::optional<E>> OptionalEnum(const char* key) const {
    if (!Has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) return FieldError(Path(key), "must be a string");
    std::optional<E> v = Parse<E>(j_.at(key).get<std::string>());
    if (!v) {
      return FieldError(Path(key),
                        absl::StrCat("must be one of: ", absl::StrJoin(Names<E>(), ", ")));
    }
    return v;
  }
  template <typename E>
  absl::StatusOr<E> Enum(const char* key) const {
    if (!Has(key)) return FieldError(Path(key), "is required");
    ASSIGN_OR_RETURN(std::optional<E> v, OptionalEnum<E>(key));
    return *v;
  }
  absl::StatusOr<std::vector<std::string>> IdList(const char* key, size_t max,
                                                  bool required) const {
    std::vector<std::string> out;
    if (!Has(key)) {
      if (required) return FieldError(Path(key), "is required");
      return out;
    }
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max)
      return FieldError(Path(key), absl::StrCat("has more than ", max, " entries"));
    for (const Json& e : a) {
      if (!e.is_string() || !ValidId(e.get<std::string>())) {
        return FieldError(Path(key), "holds an invalid id");
      }
      if (std::find(out.begin(), out.end(), e.get<std::string>()) != out.end()) {
        return FieldError(Path(key), absl::StrCat("repeats ", e.get<std::string>()));
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  absl::StatusOr<std::vector<std::string>> TextList(const char* key, size_t max_items,
                                                    size_t max_chars) const {
    std::vector<std::string> out;
    if (!Has(key)) return out;
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max_items) {
      return FieldError(Path(key), absl::StrCat("has more than ", max_items, " entries"));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = absl::StrCat(Path(key), "[", i, "]");
      if (!a[i].is_string()) return FieldError(p, "must be a string");
      std::string s = TrimText(a[i].get<std::string>());
      if (s.empty()) return FieldError(p, "must not be empty");
      if (CodePoints(s) > max_chars)
        return FieldError(p, absl::StrCat("is longer than ", max_chars));
      out.push_back(s);
    }
    return out;
  }
  absl::StatusOr<const Json*> Objects(const char* key, size_t max) const {
    if (!Has(key)) return static_cast<const Json*>(nullptr);
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max)
      return FieldError(Path(key), absl::StrCat("has more than ", max, " entries"));
    return &a;
  }
  absl::StatusOr<bool> Bool(const char* key) const {
    if (!Has(key)) return false;
    if (!j_.at(key).is_boolean()) return FieldError(Path(key), "must be a boolean");
    return j_.at(key).get<bool>();
  }

 private:
  const Json& j_;
  std::string where_;
};

}  // namespace raw::raven
