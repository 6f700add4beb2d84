#include "daemon/tools/schema_constraints.h"

// See schema_validator.cc: valijson throws, and every call is wrapped there.
#define VALIJSON_USE_EXCEPTIONS 1

#include <cmath>
#include <new>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "daemon/tools/schema_keywords.h"
#include "re2/re2.h"
#include "valijson/adapters/nlohmann_json_adapter.hpp"
#include "valijson/constraint_builder.hpp"
#include "valijson/constraints/concrete_constraints.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validation_results.hpp"

namespace raw::tools::schema_keywords {

std::optional<SchemaRegex> SchemaRegex::Compile(const std::string& source, std::string* error) {
  SchemaRegex regex;
  regex.source_ = source;
  RE2::Options options;
  options.set_log_errors(false);
  auto re2 = std::make_shared<const RE2>(source, options);
  if (re2->ok()) {
    regex.re2_ = std::move(re2);
    return regex;
  }
  try {
    regex.fallback_ = std::make_shared<const std::regex>(source, std::regex::ECMAScript);
    return regex;
  } catch (const std::exception&) {
    *error = absl::StrCat("invalid regular expression \"", source, "\": ", re2->error());
    return std::nullopt;
  }
}

bool SchemaRegex::Search(const std::string& subject, std::string* error) const {
  if (re2_ != nullptr) return RE2::PartialMatch(subject, *re2_);
  if (subject.size() > kMaxStdRegexSubject) {
    *error = absl::StrCat("a string of ", subject.size(), " bytes is too long to check against \"",
                          source_, "\"");
    return false;
  }
  try {
    return std::regex_search(subject, *fallback_);
  } catch (const std::exception& e) {
    *error = absl::StrCat("could not be checked against \"", source_, "\": ", e.what());
    return false;
  }
}

namespace {

using valijson::adapters::Adapter;
using valijson::constraints::Constraint;

Json AdapterToJson(const Adapter& value) {
  if (value.isNull()) return nullptr;
  if (value.isBool()) return value.getBool();
  if (value.isString()) return value.getString();
  if (value.isInteger()) return value.getInteger();
  if (value.isDouble()) return value.getDouble();
  Json out = value.isArray() ? Json::array() : Json::object();
  if (value.isArray()) {
    value.applyToArray([&](const Adapter& item) {
      out.push_back(AdapterToJson(item));
      return true;
    });
  } else if (value.isObject()) {
    value.applyToObject([&](const std::string& key, const Adapter& item) {
      out[key] = AdapterToJson(item);
      return true;
    });
  }
  return out;
}

// JsonTypeName of `value` without copying it (a 4 MiB array stays where it is).
std::string AdapterTypeName(const Adapter& value) {
  if (value.isNull()) return "null";
  if (value.isBool()) return "boolean";
  if (value.isString()) return "string";
  if (value.isInteger()) return "integer";
  if (value.isDouble()) return "number";
  return value.isArray() ? "array" : "object";
}

// The constraints of the private keywords (valijson's PolyConstraint).
template <typename Derived>
class RawConstraint : public valijson::constraints::PolyConstraint {
 protected:
  static bool Fail(const std::vector<std::string>& context, valijson::ValidationResults* results,
                   const std::string& message) {
    if (results != nullptr) results->pushError(context, message);
    return false;
  }

 private:
  Constraint* cloneInto(void* where) const override {
    return new (where) Derived(static_cast<const Derived&>(*this));
  }
  size_t sizeOf() const override { return sizeof(Derived); }
};

class TypeConstraint : public RawConstraint<TypeConstraint> {
 public:
  explicit TypeConstraint(std::vector<std::string> types) : types_(std::move(types)) {}
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    for (const std::string& type : types_) {
      if (Is(type, target)) return true;
    }
    return Fail(context, results,
                absl::StrCat("expected type ", absl::StrJoin(types_, " or "), ", got ",
                             AdapterTypeName(target)));
  }

 private:
  static bool Is(const std::string& type, const Adapter& v) {
    if (type == "integer") {
      // Draft 7: a number with a zero fractional part is an integer.
      return v.isInteger() || (v.isDouble() && std::isfinite(v.getDouble()) &&
                               std::floor(v.getDouble()) == v.getDouble());
    }
    return (type == "number" && v.isNumber()) || (type == "string" && v.isString()) ||
           (type == "boolean" && v.isBool()) || (type == "null" && v.isNull()) ||
           (type == "object" && v.isObject()) || (type == "array" && v.isArray());
  }
  std::vector<std::string> types_;
};

// enum, and const as an enum of one value.
class EnumConstraint : public RawConstraint<EnumConstraint> {
 public:
  EnumConstraint(Json values, bool is_const)
      : values_(std::make_shared<const Json>(std::move(values))), is_const_(is_const) {}
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    for (const Json& value : *values_) {
      if (target.equalTo(valijson::adapters::NlohmannJsonAdapter(value), true)) return true;
    }
    std::string got = Brief(AdapterToJson(target));
    if (is_const_) {
      return Fail(context, results,
                  absl::StrCat("expected the value ", Brief((*values_)[0]), ", got ", got));
    }
    std::vector<std::string> allowed;
    for (const Json& value : *values_) {
      if (allowed.size() == 10) {
        allowed.push_back("…");
        break;
      }
      allowed.push_back(Brief(value));
    }
    return Fail(context, results,
                absl::StrCat("expected one of ", absl::StrJoin(allowed, ", "), "; got ", got));
  }

 private:
  std::shared_ptr<const Json> values_;
  bool is_const_;
};

class PatternConstraint : public RawConstraint<PatternConstraint> {
 public:
  explicit PatternConstraint(SchemaRegex regex) : regex_(std::move(regex)) {}
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;
    std::string subject = target.getString();
    std::string error;
    if (regex_.Search(subject, &error)) return true;
    if (!error.empty()) return Fail(context, results, error);
    return Fail(context, results,
                absl::StrCat("expected a string matching the pattern \"", regex_.source(),
                             "\", got ", Brief(subject)));
  }

 private:
  SchemaRegex regex_;
};

// The formats valijson asserts (date, time, date-time), with RE2.
class FormatConstraint : public RawConstraint<FormatConstraint> {
 public:
  explicit FormatConstraint(std::string format) : format_(std::move(format)) {}
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString()) return true;
    std::string s = target.getString();
    static constexpr char kTime[] =
        R"(([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d))";
    bool ok = true;
    std::string expected;
    if (format_ == "date") {
      ok = IsDate(s);
      expected = "a date (YYYY-MM-DD)";
    } else if (format_ == "date-time") {
      ok = IsDate(s.substr(0, 10)) && s.size() > 11 && (s[10] == 'T' || s[10] == 't') &&
           RE2::FullMatch(s.substr(11), kTime);
      expected = "a date-time (RFC 3339, e.g. 2024-05-01T12:00:00Z)";
    } else if (format_ == "time") {
      ok = RE2::FullMatch(s, kTime);
      expected = "a time (HH:MM:SS with a time zone offset)";
    }
    if (ok) return true;
    return Fail(context, results, absl::StrCat("expected ", expected, ", got ", Brief(s)));
  }

 private:
  static bool IsDate(const std::string& s) {
    int year = 0;
    int month = 0;
    int day = 0;
    if (!RE2::FullMatch(s, R"((\d{4})-(\d{2})-(\d{2}))", &year, &month, &day)) return false;
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month != 2 || day <= 28 || leap;
  }
  std::string format_;
};

// additionalProperties: false, saying which names were allowed.
class ClosedConstraint : public RawConstraint<ClosedConstraint> {
 public:
  ClosedConstraint(std::set<std::string> names, std::vector<SchemaRegex> patterns)
      : names_(std::make_shared<const std::set<std::string>>(std::move(names))),
        patterns_(std::make_shared<const std::vector<SchemaRegex>>(std::move(patterns))) {
    std::vector<std::string> allowed(names_->begin(), names_->end());
    for (const SchemaRegex& pattern : *patterns_) {
      allowed.push_back(absl::StrCat("names matching \"", pattern.source(), "\""));
    }
    allowed_ = allowed.empty() ? " (no properties are allowed)"
                               : absl::StrCat(" (allowed: ", absl::StrJoin(allowed, ", "), ")");
  }
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isObject()) return true;
    bool ok = true;
    target.applyToObject([&](const std::string& name, const Adapter&) {
      if (names_->count(name) != 0) return true;
      for (const SchemaRegex& pattern : *patterns_) {
        std::string error;
        if (pattern.Search(name, &error)) return true;
      }
      ok = Fail(context, results, absl::StrCat("property \"", name, "\" is not allowed", allowed_));
      return results != nullptr;  // without results the first failure decides
    });
    return ok;
  }

 private:
  std::shared_ptr<const std::set<std::string>> names_;
  std::shared_ptr<const std::vector<SchemaRegex>> patterns_;
  std::string allowed_;
};

// Builds a constraint from the value of a private keyword (already checked
// by CheckAndRewrite; throws, caught by SchemaValidator::Compile, if not).
template <typename Make>
class Builder : public valijson::ConstraintBuilder {
 public:
  explicit Builder(Make make) : make_(std::move(make)) {}
  Constraint* make(const Adapter& value) const override { return make_(AdapterToJson(value)); }

 private:
  Make make_;
};

template <typename Make>
const valijson::ConstraintBuilder* NewBuilder(Make make) {
  return new Builder<Make>(std::move(make));
}

SchemaRegex CompileOrThrow(const std::string& source) {
  std::string error;
  std::optional<SchemaRegex> regex = SchemaRegex::Compile(source, &error);
  if (!regex) throw std::runtime_error(error);
  return *std::move(regex);
}

}  // namespace

void AddConstraintBuilders(valijson::SchemaParser& parser) {
  auto key = [](const char* name) { return std::string(kPrivatePrefix) + name; };
  parser.addConstraintBuilder(key("type"), NewBuilder([](const Json& value) -> Constraint* {
                                std::vector<std::string> types;
                                if (value.is_string()) types.push_back(value.get<std::string>());
                                for (const Json& t : value.is_array() ? value : Json::array()) {
                                  types.push_back(t.get<std::string>());
                                }
                                return new TypeConstraint(std::move(types));
                              }));
  parser.addConstraintBuilder(key("enum"), NewBuilder([](const Json& value) -> Constraint* {
                                return new EnumConstraint(value, false);
                              }));
  parser.addConstraintBuilder(key("const"), NewBuilder([](const Json& value) -> Constraint* {
                                return new EnumConstraint(Json::array({value}), true);
                              }));
  parser.addConstraintBuilder(
      key("pattern"), NewBuilder([](const Json& value) -> Constraint* {
        return new PatternConstraint(CompileOrThrow(value.get<std::string>()));
      }));
  parser.addConstraintBuilder(key("format"), NewBuilder([](const Json& value) -> Constraint* {
                                return new FormatConstraint(value.get<std::string>());
                              }));
  parser.addConstraintBuilder(kClosedKey, NewBuilder([](const Json& value) -> Constraint* {
                                std::set<std::string> names;
                                std::vector<SchemaRegex> patterns;
                                for (const Json& name : value.at("names")) {
                                  names.insert(name.get<std::string>());
                                }
                                for (const Json& source : value.at("patterns")) {
                                  patterns.push_back(CompileOrThrow(source.get<std::string>()));
                                }
                                return new ClosedConstraint(std::move(names), std::move(patterns));
                              }));
}

}  // namespace raw::tools::schema_keywords
