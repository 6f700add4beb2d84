#include "daemon/tools/schema_constraints.h"

// See schema_validator.cc: valijson throws, and every call is wrapped there.
#define VALIJSON_USE_EXCEPTIONS 1

#include <cmath>
#include <map>
#include <new>
#include <regex>
#include <set>
#include <stdexcept>
#include <unordered_map>
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
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/subschema.hpp"
#include "valijson/validation_results.hpp"
#include "valijson/validation_visitor.hpp"

namespace raw::tools::schema_keywords {

class PatternSubschemas {
 public:
  // Holder id -> "0", "1", … (the patterns in order), "additional".
  std::map<int, std::map<std::string, const valijson::Subschema*>> by_holder;
};

namespace {

using valijson::Subschema;
using valijson::adapters::Adapter;
using valijson::adapters::NlohmannJsonAdapter;
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
      std::string error;
      for (const SchemaRegex& pattern : *patterns_) {
        if (pattern.Search(name, &error)) return true;
        if (!error.empty()) break;  // neither allowed nor refused: refuse
      }
      ok = Fail(context, results,
                error.empty() ? absl::StrCat("property \"", name, "\" is not allowed", allowed_)
                              : absl::StrCat("property name ", Brief(name), " ", error));
      return results != nullptr;  // without results the first failure decides
    });
    return ok;
  }

 private:
  std::shared_ptr<const std::set<std::string>> names_;
  std::shared_ptr<const std::vector<SchemaRegex>> patterns_;
  std::string allowed_;
};

// Marks a patternProperties holder (see schema_constraints.h); always valid.
class HolderConstraint : public RawConstraint<HolderConstraint> {
 public:
  explicit HolderConstraint(int id) : id_(id) {}
  bool validate(const Adapter&, const std::vector<std::string>&,
                valijson::ValidationResults*) const override {
    return true;
  }
  int id() const { return id_; }

 private:
  int id_;
};

// patternProperties, and the additionalProperties schema beside them, as
// valijson applies them (a value is checked against the subschema of every
// pattern its name matches; one that no pattern and no "properties" name
// claims, against additionalProperties), with the messages valijson gives.
class PatternPropertiesConstraint : public RawConstraint<PatternPropertiesConstraint> {
 public:
  PatternPropertiesConstraint(int id, std::set<std::string> names,
                              std::vector<SchemaRegex> patterns, bool has_additional,
                              const PatternSubschemas* subschemas)
      : id_(id),
        names_(std::make_shared<const std::set<std::string>>(std::move(names))),
        patterns_(std::make_shared<const std::vector<SchemaRegex>>(std::move(patterns))),
        has_additional_(has_additional),
        subschemas_(subschemas) {}

  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isObject()) return true;
    auto linked = subschemas_->by_holder.find(id_);
    if (linked == subschemas_->by_holder.end()) {
      throw std::runtime_error("the patternProperties of the schema were not linked");
    }
    bool ok = true;
    target.applyToObject([&](const std::string& name, const Adapter& value) {
      std::vector<std::string> here = context;
      here.push_back("[" + name + "]");
      bool claimed = names_->count(name) != 0;
      for (size_t i = 0; i < patterns_->size(); ++i) {
        const SchemaRegex& pattern = (*patterns_)[i];
        std::string error;
        bool matches = pattern.Search(name, &error);
        if (!error.empty()) {
          // Neither matched nor not: the value is refused, not let through.
          ok = Fail(here, results, absl::StrCat("property name ", error));
          claimed = true;
          continue;
        }
        if (!matches) continue;
        claimed = true;
        if (!Check(linked->second, std::to_string(i), value, here, results)) {
          ok = Fail(context, results,
                    absl::StrCat("Failed to validate against schema associated with pattern '",
                                 pattern.source(), "'."));
        }
      }
      if (!claimed && has_additional_ &&
          !Check(linked->second, "additional", value, here, results)) {
        ok = Fail(context, results, "Failed to validate against additional properties schema");
      }
      return ok || results != nullptr;  // without results the first failure decides
    });
    return ok;
  }

 private:
  // Validates `value` against the holder's subschema `key` as valijson's
  // own visitor does (strong types, as SchemaValidator validates).
  static bool Check(const std::map<std::string, const Subschema*>& holder, const std::string& key,
                    const Adapter& value, const std::vector<std::string>& context,
                    valijson::ValidationResults* results) {
    auto subschema = holder.find(key);
    const auto* json = dynamic_cast<const NlohmannJsonAdapter*>(&value);
    if (subschema == holder.end() || subschema->second == nullptr || json == nullptr) {
      throw std::runtime_error("a patternProperties subschema is missing");
    }
    std::unordered_map<std::string, std::regex> unused;  // valijson's "pattern" cache
    valijson::ValidationVisitor<NlohmannJsonAdapter> visitor(*json, context, true, results, unused);
    return visitor.validateSchema(*subschema->second);
  }

  int id_;
  std::shared_ptr<const std::set<std::string>> names_;
  std::shared_ptr<const std::vector<SchemaRegex>> patterns_;
  bool has_additional_;
  const PatternSubschemas* subschemas_;
};

// Walks every subschema valijson parsed, recording the holders' subschemas.
class HolderFinder : public valijson::constraints::ConstraintVisitor {
 public:
  explicit HolderFinder(PatternSubschemas& out) : out_(out) {}

  void Walk(const Subschema* subschema) {
    if (subschema == nullptr || !seen_.insert(subschema).second) return;
    int holder = -1;
    const valijson::constraints::PropertiesConstraint* properties = nullptr;
    Subschema::ApplyFunction each = [&](const Constraint& constraint) {
      if (const auto* mark = dynamic_cast<const HolderConstraint*>(&constraint)) {
        holder = mark->id();
      }
      if (const auto* p =
              dynamic_cast<const valijson::constraints::PropertiesConstraint*>(&constraint)) {
        properties = p;
      }
      constraint.accept(*this);
      return true;
    };
    subschema->apply(each);
    if (holder >= 0 && properties != nullptr) {
      properties->applyToProperties([&](const auto& name, const Subschema* s) {
        out_.by_holder[holder][std::string(name.c_str())] = s;
        return true;
      });
    }
  }

 private:
  using C = valijson::constraints::ConstraintVisitor;
  template <typename T>
  bool All(const T& c) {
    c.applyToSubschemas([&](unsigned, const Subschema* s) {
      Walk(s);
      return true;
    });
    return true;
  }
  bool visit(const valijson::constraints::AllOfConstraint& c) override { return All(c); }
  bool visit(const valijson::constraints::AnyOfConstraint& c) override { return All(c); }
  bool visit(const valijson::constraints::OneOfConstraint& c) override { return All(c); }
  bool visit(const valijson::constraints::ConditionalConstraint& c) override {
    Walk(c.getIfSubschema());
    Walk(c.getThenSubschema());
    Walk(c.getElseSubschema());
    return true;
  }
  bool visit(const valijson::constraints::ContainsConstraint& c) override {
    Walk(c.getSubschema());
    return true;
  }
  bool visit(const valijson::constraints::NotConstraint& c) override {
    Walk(c.getSubschema());
    return true;
  }
  bool visit(const valijson::constraints::PropertyNamesConstraint& c) override {
    Walk(c.getSubschema());
    return true;
  }
  bool visit(const valijson::constraints::SingularItemsConstraint& c) override {
    Walk(c.getItemsSubschema());
    return true;
  }
  bool visit(const valijson::constraints::LinearItemsConstraint& c) override {
    c.applyToItemSubschemas([&](unsigned, const Subschema* s) {
      Walk(s);
      return true;
    });
    Walk(c.getAdditionalItemsSubschema());
    return true;
  }
  bool visit(const valijson::constraints::DependenciesConstraint& c) override {
    c.applyToSchemaDependencies([&](const auto&, const Subschema* s) {
      Walk(s);
      return true;
    });
    return true;
  }
  bool visit(const valijson::constraints::PropertiesConstraint& c) override {
    auto walk = [&](const auto&, const Subschema* s) {
      Walk(s);
      return true;
    };
    c.applyToProperties(walk);
    c.applyToPatternProperties(walk);
    Walk(c.getAdditionalPropertiesSubschema());
    return true;
  }
  // Constraints without subschemas.
  bool visit(const valijson::constraints::ConstConstraint&) override { return true; }
  bool visit(const valijson::constraints::EnumConstraint&) override { return true; }
  bool visit(const valijson::constraints::FormatConstraint&) override { return true; }
  bool visit(const valijson::constraints::MaximumConstraint&) override { return true; }
  bool visit(const valijson::constraints::MaxItemsConstraint&) override { return true; }
  bool visit(const valijson::constraints::MaxLengthConstraint&) override { return true; }
  bool visit(const valijson::constraints::MaxPropertiesConstraint&) override { return true; }
  bool visit(const valijson::constraints::MinimumConstraint&) override { return true; }
  bool visit(const valijson::constraints::MinItemsConstraint&) override { return true; }
  bool visit(const valijson::constraints::MinLengthConstraint&) override { return true; }
  bool visit(const valijson::constraints::MinPropertiesConstraint&) override { return true; }
  bool visit(const valijson::constraints::MultipleOfDoubleConstraint&) override { return true; }
  bool visit(const valijson::constraints::MultipleOfIntConstraint&) override { return true; }
  bool visit(const valijson::constraints::PatternConstraint&) override { return true; }
  bool visit(const valijson::constraints::PolyConstraint&) override { return true; }
  bool visit(const valijson::constraints::RequiredConstraint&) override { return true; }
  bool visit(const valijson::constraints::TypeConstraint&) override { return true; }
  bool visit(const valijson::constraints::UniqueItemsConstraint&) override { return true; }

  PatternSubschemas& out_;
  std::set<const Subschema*> seen_;
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

std::shared_ptr<PatternSubschemas> AddConstraintBuilders(valijson::SchemaParser& parser) {
  auto subschemas = std::make_shared<PatternSubschemas>();
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
  parser.addConstraintBuilder(kPatternHolderKey, NewBuilder([](const Json& value) -> Constraint* {
                                return new HolderConstraint(value.get<int>());
                              }));
  const PatternSubschemas* linked = subschemas.get();
  parser.addConstraintBuilder(
      kPatternPropertiesKey, NewBuilder([linked](const Json& value) -> Constraint* {
        std::set<std::string> names;
        std::vector<SchemaRegex> patterns;
        for (const Json& name : value.at("names")) names.insert(name.get<std::string>());
        for (const Json& source : value.at("patterns")) {
          patterns.push_back(CompileOrThrow(source.get<std::string>()));
        }
        return new PatternPropertiesConstraint(value.at("id").get<int>(), std::move(names),
                                               std::move(patterns),
                                               value.at("additional").get<bool>(), linked);
      }));
  return subschemas;
}

void LinkPatternProperties(const valijson::Schema& schema, PatternSubschemas& subschemas) {
  HolderFinder(subschemas).Walk(schema.root());
}

}  // namespace raw::tools::schema_keywords
