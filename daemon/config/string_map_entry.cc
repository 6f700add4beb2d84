#include "daemon/config/string_map_entry.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "daemon/config/variable_refs.h"

namespace raw::config {
namespace {

// The object under `key`, or nullptr (absent, or not an object: recorded).
const Json* FindObject(FieldReader& r, absl::string_view key, absl::string_view what) {
  const Json* v = r.Find(key);
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    r.Report(key, absl::StrCat("expected an object of ", what, ", got ", DescribeValue(*v)));
    return nullptr;
  }
  return v;
}

}  // namespace

bool IsHttpToken(absl::string_view name) {
  static constexpr absl::string_view kTokenPunctuation = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           kTokenPunctuation.find(c) != absl::string_view::npos;
  });
}

std::map<std::string, std::string> ReadHeaders(FieldReader& r, absl::string_view key,
                                               const HeaderRefusal& refuse,
                                               std::vector<ConfigProblem>& problems) {
  std::map<std::string, std::string> headers;
  const Json* object = FindObject(r, key, "header names to values");
  if (object == nullptr) return headers;
  std::map<std::string, std::string> seen;  // lowercased -> as written
  for (const auto& [name, value] : object->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath(r.PathOf(key), name);
    if (!IsHttpToken(name)) {
      problems.push_back(
          {path, "invalid header name (letters, digits and !#$%&'*+-.^_`|~, no spaces)"});
      continue;
    }
    std::string lower = absl::AsciiStrToLower(name);
    if (auto [it, inserted] = seen.emplace(lower, name); !inserted) {
      problems.push_back({path, absl::StrCat("the same header as \"", it->second,
                                             "\" (header names ignore case)")});
      continue;
    }
    if (std::optional<std::string> why = refuse ? refuse(lower) : std::nullopt) {
      problems.push_back({path, *why});
      continue;
    }
    if (!value.is_string()) {
      problems.push_back({path, absl::StrCat("expected a string, got ", DescribeValue(value))});
      continue;
    }
    const std::string& text = value.get_ref<const std::string&>();
    if (text.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      problems.push_back({path, "a header value may not contain a line break or NUL"});
      continue;
    }
    headers[name] = text;
  }
  return headers;
}

std::map<std::string, std::string> ReadEnvironment(FieldReader& r, absl::string_view key,
                                                   std::vector<ConfigProblem>& problems) {
  std::map<std::string, std::string> env;
  const Json* object = FindObject(r, key, "environment variable names to values");
  if (object == nullptr) return env;
  for (const auto& [name, value] : object->items()) {
    if (ProblemsFull(problems)) break;
    std::string path = JoinPath(r.PathOf(key), name);
    if (!IsVariableName(name)) {
      problems.push_back(
          {path,
           "invalid environment variable name (letters, digits and '_', not starting with "
           "a digit)"});
      continue;
    }
    if (!value.is_string()) {
      problems.push_back({path, absl::StrCat("expected a string, got ", DescribeValue(value))});
      continue;
    }
    const std::string& text = value.get_ref<const std::string&>();
    if (text.find('\0') != std::string::npos) {
      problems.push_back({path, "an environment value may not contain NUL"});
      continue;
    }
    env[name] = text;
  }
  return env;
}

}  // namespace raw::config
