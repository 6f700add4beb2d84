#include "daemon/config/field_reader.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/utf8.h"

namespace raw::config {
namespace {

// Longest string shown verbatim after "got".
constexpr size_t kMaxShownChars = 40;
// JoinNames of defined names: a problem names at most this many, each cut
// to this length (a file may define thousands, and one problem per entry
// naming all of them would grow with the square of the file).
constexpr size_t kMaxListedNames = 20;
constexpr size_t kMaxListedNameBytes = 64;

// What a non-integer or a too-small value was expected to be.
std::string IntegerKind(int64_t min) {
  if (min == 0) return "a non-negative integer";
  if (min == 1) return "a positive integer";
  return absl::StrCat("an integer of at least ", min);
}

}  // namespace

std::string JoinPath(absl::string_view parent, absl::string_view key) {
  // '$' keeps "$schema" readable; names themselves may not contain it.
  bool plain = !key.empty() && std::all_of(key.begin(), key.end(),
                                           [](char c) { return IsNameChar(c) || c == '$'; });
  if (plain) return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
  return absl::StrCat(parent, "[", DumpJson(Json(std::string(key))), "]");
}

std::string IndexPath(absl::string_view parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

std::string DescribeValue(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::null:
      return "null";
    case Json::value_t::string: {
      const std::string& s = value.get_ref<const std::string&>();
      if (s.size() <= kMaxShownChars) return DumpJson(value);
      // Cut on a character boundary so the shortened text stays valid UTF-8.
      size_t cut = kMaxShownChars;
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
      return absl::StrCat(DumpJson(Json(s.substr(0, cut))), "...");
    }
    default:
      return DumpJson(value);
  }
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

bool IsValidName(absl::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), IsNameChar);
}

std::string JoinNames(std::span<const absl::string_view> names) {
  return absl::StrJoin(names, ", ");
}

std::string JoinNames(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxListedNames; ++i) {
    if (i > 0) out += ", ";
    const std::string& name = names[i];
    if (name.size() <= kMaxListedNameBytes) {
      out += name;
    } else {
      absl::StrAppend(&out, name.substr(0, Utf8Floor(name, kMaxListedNameBytes)), "...");
    }
  }
  if (names.size() > kMaxListedNames) {
    absl::StrAppend(&out, " and ", names.size() - kMaxListedNames, " more");
  }
  return out;
}

FieldReader::FieldReader(const Json& value, std::string path, std::vector<ConfigProblem>& problems)
    : path_(std::move(path)), problems_(problems) {
  if (value.is_object()) {
    object_ = &value;
  } else {
    problems_.push_back({path_, absl::StrCat("expected an object, got ", DescribeValue(value))});
  }
}

void FieldReader::Report(absl::string_view key, std::string message) {
  if (ProblemsFull(problems_)) return;
  problems_.push_back({key.empty() ? path_ : PathOf(key), std::move(message)});
}

void FieldReader::RejectUnknownKeys(std::span<const absl::string_view> known) {
  if (object_ == nullptr) return;
  for (const auto& [key, value] : object_->items()) {
    if (ProblemsFull(problems_)) break;
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    Report(key, absl::StrCat("unknown key (expected one of: ", JoinNames(known), ")"));
  }
}

const Json* FieldReader::Find(absl::string_view key) const {
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(std::string(key));
  return it == object_->end() ? nullptr : &*it;
}

void FieldReader::Require(absl::string_view key, absl::string_view what) {
  if (object_ == nullptr || Find(key) != nullptr) return;
  Report(key, absl::StrCat("required key is missing (expected ", what, ")"));
}

std::optional<std::string> FieldReader::String(absl::string_view key) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    Report(key, absl::StrCat("expected a string, got ", DescribeValue(*v)));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<std::string> FieldReader::NonEmptyString(absl::string_view key,
                                                       absl::string_view what) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string() || absl::StripAsciiWhitespace(v->get_ref<const std::string&>()).empty()) {
    Report(key, absl::StrCat("expected ", what, ", got ", DescribeValue(*v)));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<std::string> FieldReader::OneOf(absl::string_view key,
                                              std::span<const absl::string_view> allowed) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
  }
  std::vector<std::string> quoted;
  for (absl::string_view a : allowed) quoted.push_back(absl::StrCat("\"", a, "\""));
  Report(key, absl::StrCat("expected one of ", absl::StrJoin(quoted, ", "), ", got ",
                           DescribeValue(*v)));
  return std::nullopt;
}

std::optional<int64_t> FieldReader::Integer(absl::string_view key, int64_t min, int64_t max) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer()) {
    bool too_large = v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(max)
                                             : v->get<int64_t>() > max;
    if (too_large) {
      Report(key, absl::StrCat("expected an integer from ", min, " to ", max, ", got ",
                               DescribeValue(*v)));
      return std::nullopt;
    }
    int64_t n = v->get<int64_t>();
    if (n >= min) return n;
  }
  Report(key, absl::StrCat("expected ", IntegerKind(min), ", got ", DescribeValue(*v)));
  return std::nullopt;
}

std::optional<bool> FieldReader::Boolean(absl::string_view key) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    Report(key, absl::StrCat("expected true or false, got ", DescribeValue(*v)));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<int64_t> FieldReader::SecondsAsMillis(absl::string_view key, int64_t max_seconds) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number() || !(v->get<double>() > 0)) {
    Report(key, absl::StrCat("expected a positive number of seconds, got ", DescribeValue(*v)));
    return std::nullopt;
  }
  double seconds = v->get<double>();
  if (seconds > static_cast<double>(max_seconds)) {
    Report(key,
           absl::StrCat("expected at most ", max_seconds, " seconds, got ", DescribeValue(*v)));
    return std::nullopt;
  }
  return std::max<int64_t>(1, std::llround(seconds * 1000));
}

}  // namespace raw::config
