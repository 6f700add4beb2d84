#include "daemon/tools/schema_keywords.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/tools/schema_constraints.h"

namespace raw::tools::schema_keywords {
namespace {

constexpr size_t kBriefLength = 60;

template <size_t N>
bool IsOneOf(const std::string& key, const char* const (&set)[N]) {
  return std::find_if(std::begin(set), std::end(set),
                      [&](const char* item) { return key == item; }) != std::end(set);
}

const char* const kSchemaValued[] = {"additionalItems",
                                     "additionalProperties",
                                     "contains",
                                     "propertyNames",
                                     "not",
                                     "if",
                                     "then",
                                     "else"};
const char* const kSchemaArrays[] = {"allOf", "anyOf", "oneOf"};
const char* const kSchemaMaps[] = {"definitions", "properties", "patternProperties"};
const char* const kStrings[] = {"$id",   "$schema",     "$ref",  "$comment",
                                "title", "description", "format"};
const char* const kNumbers[] = {"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
                                "multipleOf"};
const char* const kCounts[] = {"maxLength", "minLength",     "maxItems",
                               "minItems",  "maxProperties", "minProperties"};
const char* const kBooleans[] = {"uniqueItems", "readOnly", "writeOnly"};
const char* const kTypes[] = {"array", "boolean", "integer", "null", "number", "object", "string"};
// Keywords whose valijson constraint is replaced by a private one.
const char* const kReplaced[] = {"type", "enum", "const", "pattern", "format"};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Checker {
 public:
  RewriteResult result;
  std::vector<std::pair<std::string, std::string>> refs;  // (location, "$ref" value)
  bool nested_ids = false;  // some subschema below the root sets "$id"
  int holders = 0;          // patternProperties holders made so far

  void Schema(Json& node, const std::string& at, bool strict) {
    if (node.is_boolean()) return;
    if (!node.is_object()) {
      Error(strict, at, "expected a schema (an object or a boolean), got " + JsonTypeName(node));
      return;
    }
    std::vector<std::string> replaced;
    for (auto& item : node.items()) {
      const std::string& key = item.key();
      bool valid = Keyword(key, item.value(), at + "/" + EscapePointer(key), strict);
      if (valid && IsOneOf(key, kReplaced)) replaced.push_back(key);
    }
    for (const std::string& key : replaced) {
      node[kPrivatePrefix + key] = std::move(node[key]);
      node.erase(key);
    }
    auto closed = node.find("additionalProperties");
    if (closed != node.end() && *closed == false) {
      Json spec = {{"names", Json::array()}, {"patterns", Json::array()}};
      for (const char* kind : {"properties", "patternProperties"}) {
        auto it = node.find(kind);
        if (it == node.end() || !it->is_object()) continue;
        for (auto& item : it->items()) {
          spec[std::string(kind) == "properties" ? "names" : "patterns"].push_back(item.key());
        }
      }
      node.erase(closed);
      node[kClosedKey] = std::move(spec);
    }
    TakePatternProperties(node);
  }

 private:
  // Moves patternProperties (and an additionalProperties schema beside
  // them) into a holder for kPatternPropertiesKey (schema_constraints.h).
  // A pattern no engine compiles makes the builder throw if valijson ever
  // parses this node: valijson never sees patternProperties.
  void TakePatternProperties(Json& node) {
    auto patterns = node.find("patternProperties");
    if (patterns == node.end() || !patterns->is_object()) return;
    auto all_of = node.find("allOf");
    if (all_of != node.end() && !all_of->is_array()) return;
    int id = holders++;
    Json spec = {
        {"id", id}, {"names", Json::array()}, {"patterns", Json::array()}, {"additional", false}};
    Json held = Json::object();
    auto properties = node.find("properties");
    if (properties != node.end() && properties->is_object()) {
      for (auto& item : properties->items()) spec["names"].push_back(item.key());
    }
    for (auto& item : patterns->items()) {
      held[std::to_string(spec["patterns"].size())] = std::move(item.value());
      spec["patterns"].push_back(item.key());
    }
    auto additional = node.find("additionalProperties");
    if (additional != node.end() && additional->is_object()) {
      held["additional"] = std::move(*additional);
      spec["additional"] = true;
      node.erase(additional);
    }
    node.erase("patternProperties");
    node[kPatternPropertiesKey] = std::move(spec);
    Json holder = {{kPatternHolderKey, id}, {"properties", std::move(held)}};
    // Parsed by valijson (so "$ref" inside resolves as anywhere else), never
    // applied: "if" always holds.
    node["allOf"].push_back({{"if", true}, {"else", std::move(holder)}});
  }

  void Error(bool strict, const std::string& at, const std::string& message) {
    if (strict) result.errors.push_back(absl::StrCat(at.empty() ? "/" : at, ": ", message));
  }
  bool Expect(bool ok, bool strict, const std::string& at, const std::string& what,
              const Json& value) {
    if (!ok) Error(strict, at, absl::StrCat("expected ", what, ", got ", Brief(value)));
    return ok;
  }
  bool Regex(const std::string& source, bool strict, const std::string& at) {
    std::string error;
    if (SchemaRegex::Compile(source, &error)) return true;
    Error(strict, at, error);
    return false;
  }

  // Checks one keyword (recursing into subschemas); false when malformed.
  bool Keyword(const std::string& key, Json& value, const std::string& at, bool strict) {
    if (IsOneOf(key, kSchemaValued)) {
      Schema(value, at, strict);
    } else if (key == "items" && value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i) Schema(value[i], absl::StrCat(at, "/", i), strict);
    } else if (key == "items") {
      Schema(value, at, strict);
    } else if (IsOneOf(key, kSchemaArrays)) {
      if (!Expect(value.is_array() && !value.empty(), strict, at, "a non-empty array of schemas",
                  value)) {
        return false;
      }
      for (size_t i = 0; i < value.size(); ++i) Schema(value[i], absl::StrCat(at, "/", i), strict);
    } else if (IsOneOf(key, kSchemaMaps) || key == "dependencies") {
      if (!Expect(value.is_object(), strict, at, "an object", value)) return false;
      for (auto& item : value.items()) {
        std::string here = at + "/" + EscapePointer(item.key());
        if (key == "patternProperties") Regex(item.key(), strict, here);
        if (key == "dependencies" && item.value().is_array()) {
          Json& names = item.value();
          Expect(
              std::all_of(names.begin(), names.end(), [](const Json& n) { return n.is_string(); }),
              strict, here, "a schema or an array of property names", names);
        } else {
          Schema(item.value(), here, strict);
        }
      }
    } else if (IsOneOf(key, kStrings)) {
      if (key == "$ref" && strict && value.is_string())
        refs.emplace_back(at, value.get<std::string>());
      if (key == "$id" && at != "/$id") nested_ids = true;
      return Expect(value.is_string(), strict, at, "a string", value);
    } else if (key == "pattern") {
      return Expect(value.is_string(), strict, at, "a string", value) &&
             Regex(value.get<std::string>(), strict, at);
    } else if (IsOneOf(key, kNumbers)) {
      bool positive = key != "multipleOf" || (value.is_number() && value.get<double>() > 0);
      return Expect(value.is_number() && positive, strict, at,
                    key == "multipleOf" ? "a number greater than 0" : "a number", value);
    } else if (IsOneOf(key, kCounts)) {
      // A schema built in C++ holds a literal such as 1 as a signed
      // integer; one parsed from text holds it as unsigned.
      bool ok = value.is_number_unsigned() ||
                (value.is_number_integer() && value.get<int64_t>() >= 0) ||
                (value.is_number_float() && value.get<double>() >= 0 &&
                 std::floor(value.get<double>()) == value.get<double>());
      return Expect(ok, strict, at, "a non-negative integer", value);
    } else if (IsOneOf(key, kBooleans)) {
      return Expect(value.is_boolean(), strict, at, "a boolean", value);
    } else if (key == "required") {
      std::set<std::string> names;
      bool ok = value.is_array() && std::all_of(value.begin(), value.end(), [&](const Json& n) {
                  return n.is_string() && names.insert(n.get<std::string>()).second;
                });
      return Expect(ok, strict, at, "an array of distinct property names", value);
    } else if (key == "type") {
      std::set<std::string> seen;
      auto is_type = [&](const Json& t) {
        return t.is_string() && IsOneOf(t.get<std::string>(), kTypes) &&
               seen.insert(t.get<std::string>()).second;
      };
      bool ok = value.is_array()
                    ? !value.empty() && std::all_of(value.begin(), value.end(), is_type)
                    : is_type(value);
      return Expect(ok, strict, at,
                    absl::StrCat("a type name (", absl::StrJoin(kTypes, ", "),
                                 ") or a non-empty array of distinct type names"),
                    value);
    } else if (key == "enum" || key == "examples") {
      return Expect(value.is_array(), strict, at, "an array", value);
    } else if (key != "const" && key != "default" && value.is_object()) {
      // An unknown keyword may still hold schemas that a $ref points at.
      Schema(value, at, false);
    }
    return true;
  }
};

std::string PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    int high = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    int low = high >= 0 ? HexValue(text[i + 2]) : -1;
    if (text[i] == '%' && low >= 0) {
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The value `pointer` (RFC 6901, "" = the whole document) names, or null.
const Json* PointerTarget(const Json& document, const std::string& pointer) {
  if (pointer.empty()) return &document;
  if (pointer[0] != '/') return nullptr;
  const Json* node = &document;
  size_t start = 1;
  while (true) {
    size_t end = pointer.find('/', start);
    std::string token = pointer.substr(start, end == std::string::npos ? end : end - start);
    std::string key;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        key += token[++i] == '0' ? '~' : '/';
      } else {
        key += token[i];
      }
    }
    if (node->is_object()) {
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      bool digits =
          !key.empty() && key.size() < 10 &&
          std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoul(key) >= node->size()) return nullptr;
      node = &(*node)[std::stoul(key)];
    } else {
      return nullptr;
    }
    if (end == std::string::npos) return node;
    start = end + 1;
  }
}

}  // namespace

RewriteResult CheckAndRewrite(Json& schema) {
  Json original = schema;
  Checker checker;
  checker.Schema(schema, "", true);
  // A "$ref" within the document ("#/definitions/x") must point at
  // something. (Below a nested "$id" the base changes; valijson decides.)
  for (const auto& [at, ref] : checker.nested_ids ? decltype(checker.refs){} : checker.refs) {
    if (ref.empty() || ref[0] != '#') continue;
    if (PointerTarget(original, PercentDecode(ref.substr(1))) == nullptr) {
      checker.result.errors.push_back(
          absl::StrCat(at, ": \"", ref, "\" points at nothing in this schema"));
    }
  }
  return std::move(checker.result);
}

std::string EscapePointer(const std::string& segment) {
  std::string out;
  for (char c : segment) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

size_t CodePoints(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string JsonTypeName(const Json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  return value.type_name();
}

std::string Brief(const Json& value) {
  std::string text = DumpJson(value);
  if (text.size() <= kBriefLength) return text;
  size_t cut = kBriefLength;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

}  // namespace raw::tools::schema_keywords
