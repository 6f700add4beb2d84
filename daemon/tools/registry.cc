#include "daemon/tools/registry.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/star_glob.h"
#include "daemon/tools/schema_validator.h"

namespace raw::tools {
namespace {

constexpr size_t kMaxModelNameLength = 64;

// ^[a-zA-Z0-9_-]{1,64}$: the intersection of what every provider accepts.
bool IsValidModelName(const std::string& name) {
  if (name.empty() || name.size() > kMaxModelNameLength) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Qualified names are what `tools.use` patterns match, so they must not
// contain the glob metacharacter or whitespace.
bool IsValidQualifiedName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c == '*' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

absl::Status ToolRegistry::Register(ToolSpec spec) {
  if (!IsValidQualifiedName(spec.qualified_name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool name \"", spec.qualified_name,
                     "\" is invalid: it must be non-empty, without spaces or '*'"));
  }
  if (!IsValidModelName(spec.model_name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tool ", spec.qualified_name, ": model-facing name \"", spec.model_name,
        "\" is invalid: it must be 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'"));
  }
  if (!spec.handler) {
    return absl::InvalidArgumentError(
        absl::StrCat("tool ", spec.qualified_name, " has no handler"));
  }
  if (tools_.count(spec.qualified_name) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("tool ", spec.qualified_name, " is already registered"));
  }
  for (const auto& [name, existing] : tools_) {
    if (existing.model_name == spec.model_name) {
      return absl::AlreadyExistsError(absl::StrCat("tool ", spec.qualified_name,
                                                   ": model-facing name \"", spec.model_name,
                                                   "\" is already used by ", name));
    }
  }
  // The map type differs (ordered keys) but the values are the same.
  auto validator = SchemaValidator::Compile(Json(spec.input_schema));
  if (!validator.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tool ", spec.qualified_name, ": input_schema is ", validator.status().message()));
  }
  spec.validator = *std::move(validator);
  std::string key = spec.qualified_name;
  tools_.emplace(std::move(key), std::move(spec));
  return absl::OkStatus();
}

const ToolSpec* ToolRegistry::FindQualified(const std::string& qualified_name) const {
  auto it = tools_.find(qualified_name);
  return it == tools_.end() ? nullptr : &it->second;
}

absl::StatusOr<std::vector<const ToolSpec*>> ToolRegistry::Select(
    const std::vector<std::string>& patterns) const {
  // tools_ is ordered by qualified name, so marking and then walking it once
  // yields a sorted, duplicate-free selection whatever the pattern order.
  std::map<std::string, const ToolSpec*> chosen;
  for (const std::string& pattern : patterns) {
    bool matched = false;
    for (const auto& [name, spec] : tools_) {
      if (GlobMatch(pattern, name)) {
        chosen.emplace(name, &spec);
        matched = true;
      }
    }
    if (!matched) {
      std::vector<std::string> available;
      available.reserve(tools_.size());
      for (const auto& [name, spec] : tools_) available.push_back(name);
      return absl::InvalidArgumentError(
          absl::StrCat("tools.use: \"", pattern, "\" matches no tool (available: ",
                       available.empty() ? "none" : absl::StrJoin(available, ", "), ")"));
    }
  }
  std::vector<const ToolSpec*> result;
  result.reserve(chosen.size());
  for (const auto& [name, spec] : chosen) result.push_back(spec);
  return result;
}

bool GlobMatch(const std::string& pattern, const std::string& name) {
  return StarGlobMatch(pattern, name);
}

}  // namespace raw::tools
