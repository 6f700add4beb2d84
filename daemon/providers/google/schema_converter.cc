#include "daemon/providers/google/schema_converter.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace raw::providers::google {
namespace {

// Deeper schemas than this are cut off (a guard against pathological input
// and reference chains, not a limit real tools come near).
constexpr int kMaxDepth = 32;
// How many schemas may be converted inside inlined references in all.
// Depth alone does not bound the output: k properties that each refer to
// the next of n definitions inline k^n copies, so a few KB of schema could
// become gigabytes. Past the budget a reference is cut like a cycle; a
// reference started within it copies at most its target once, so the
// output stays linear in the input.
constexpr int kMaxInlinedSchemas = 5000;

class Converter {
 public:
  explicit Converter(const OrderedJson& root) : root_(root) {}

  OrderedJson Convert(const OrderedJson& schema, int depth);

 private:
  const OrderedJson* Resolve(std::string_view ref) const;
  OrderedJson ConvertRef(const OrderedJson& schema, int depth);
  void MergeAllOf(const OrderedJson& member, OrderedJson& result) const;

  const OrderedJson& root_;
  std::vector<std::string> ref_stack_;  // references being expanded
  int inlined_budget_ = kMaxInlinedSchemas;
};

std::string GeminiType(const std::string& json_type) { return absl::AsciiStrToUpper(json_type); }

bool FormatAllowed(std::string_view type, std::string_view format) {
  if (type == "STRING") return format == "enum" || format == "date-time";
  if (type == "NUMBER") return format == "float" || format == "double";
  if (type == "INTEGER") return format == "int32" || format == "int64";
  return false;
}

bool AllStrings(const OrderedJson& values) {
  if (!values.is_array() || values.empty()) return false;
  for (const OrderedJson& v : values) {
    if (!v.is_string()) return false;
  }
  return true;
}

bool IsEmptyObject(const OrderedJson& converted) {
  if (!converted.is_object()) return false;
  auto type = converted.find("type");
  if (type == converted.end() || *type != "OBJECT") return false;
  if (converted.contains("anyOf")) return false;
  auto props = converted.find("properties");
  return props == converted.end() || !props->is_object() || props->empty();
}

// Walks a local JSON pointer ("#", "#/$defs/Name"); nullptr when it does not
// resolve. Never throws (nlohmann's json_pointer would on bad syntax).
const OrderedJson* WalkPointer(const OrderedJson& root, std::string_view ref) {
  if (ref.empty() || ref[0] != '#') return nullptr;
  ref.remove_prefix(1);
  const OrderedJson* node = &root;
  if (ref.empty()) return node;
  if (ref[0] != '/') return nullptr;
  ref.remove_prefix(1);
  for (absl::string_view raw_token : absl::StrSplit(absl::string_view(ref.data(), ref.size()), '/')) {
    std::string token = absl::StrReplaceAll(raw_token, {{"~1", "/"}, {"~0", "~"}});
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      size_t index = 0;
      if (!absl::SimpleAtoi(token, &index) || index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
  }
  return node;
}

const OrderedJson* Converter::Resolve(std::string_view ref) const {
  return WalkPointer(root_, ref);
}

OrderedJson Converter::ConvertRef(const OrderedJson& schema, int depth) {
  const OrderedJson& ref_value = schema["$ref"];
  std::string ref = ref_value.is_string() ? ref_value.get<std::string>() : "";
  const OrderedJson* target = Resolve(ref);
  OrderedJson merged = OrderedJson::object();
  if (target != nullptr && target->is_object()) merged = *target;
  bool cycle = false;
  for (const std::string& open : ref_stack_) cycle = cycle || open == ref;
  if (target == nullptr || cycle || depth >= kMaxDepth || inlined_budget_ <= 0) {
    // Unresolvable, recursive or past the budget: keep only the target's
    // plain type.
    OrderedJson cut = OrderedJson::object();
    auto type = merged.find("type");
    if (type != merged.end() && type->is_string()) {
      cut["type"] = GeminiType(type->get<std::string>());
    }
    auto description = schema.find("description");
    if (description != schema.end() && description->is_string()) {
      cut["description"] = *description;
    }
    return cut;
  }
  // Keywords beside "$ref" refine the referenced schema.
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    if (it.key() != "$ref") merged[it.key()] = it.value();
  }
  ref_stack_.push_back(ref);
  OrderedJson out = Convert(merged, depth + 1);
  ref_stack_.pop_back();
  return out;
}

void Converter::MergeAllOf(const OrderedJson& member, OrderedJson& result) const {
  if (!member.is_object()) return;
  for (auto it = member.begin(); it != member.end(); ++it) {
    const std::string& key = it.key();
    if (key == "properties" && it.value().is_object()) {
      OrderedJson& props = result["properties"];
      if (!props.is_object()) props = OrderedJson::object();
      for (auto p = it.value().begin(); p != it.value().end(); ++p) {
        if (!props.contains(p.key())) props[p.key()] = p.value();
      }
    } else if (key == "required" && it.value().is_array()) {
      OrderedJson& required = result["required"];
      if (!required.is_array()) required = OrderedJson::array();
      for (const OrderedJson& name : it.value()) {
        if (std::find(required.begin(), required.end(), name) == required.end()) {
          required.push_back(name);
        }
      }
    } else if (!result.contains(key)) {
      result[key] = it.value();
    }
  }
}

OrderedJson Converter::Convert(const OrderedJson& schema, int depth) {
  OrderedJson result = OrderedJson::object();
  if (!schema.is_object()) return result;  // true / false / junk: any value
  if (!ref_stack_.empty()) --inlined_budget_;
  if (schema.contains("$ref")) return ConvertRef(schema, depth);
  if (depth >= kMaxDepth) return result;
  std::string format;
  std::vector<OrderedJson> all_of;
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& key = it.key();
    const OrderedJson& value = it.value();
    if (key == "type") {
      if (value.is_string()) {
        result["type"] = GeminiType(value.get<std::string>());
      } else if (value.is_array()) {
        std::vector<std::string> types;
        bool nullable = false;
        for (const OrderedJson& t : value) {
          if (!t.is_string()) continue;
          if (t == "null") {
            nullable = true;
          } else {
            types.push_back(GeminiType(t.get<std::string>()));
          }
        }
        if (types.empty() && nullable) {
          result["type"] = "NULL";
        } else if (types.size() == 1) {
          result["type"] = types[0];
        } else if (types.size() > 1) {
          OrderedJson any_of = OrderedJson::array();
          for (const std::string& t : types) any_of.push_back(OrderedJson{{"type", t}});
          result["anyOf"] = std::move(any_of);
        }
        if (nullable && !types.empty()) result["nullable"] = true;
      }
    } else if (key == "format") {
      if (value.is_string()) format = value.get<std::string>();
    } else if (key == "title" || key == "description" || key == "pattern") {
      if (value.is_string()) result[key] = value;
    } else if (key == "nullable") {
      if (value.is_boolean()) result[key] = value;
    } else if (key == "default" || key == "example") {
      result[key] = value;
    } else if (key == "enum") {
      if (AllStrings(value)) result["enum"] = value;
    } else if (key == "const") {
      if (value.is_string()) result["enum"] = OrderedJson::array({value});
    } else if (key == "properties") {
      if (!value.is_object()) continue;
      OrderedJson props = OrderedJson::object();
      for (auto p = value.begin(); p != value.end(); ++p) {
        OrderedJson converted = Convert(p.value(), depth + 1);
        if (IsEmptyObject(converted)) converted.erase("properties");
        props[p.key()] = std::move(converted);
      }
      result["properties"] = std::move(props);
    } else if (key == "required" || key == "propertyOrdering") {
      if (AllStrings(value)) result[key] = value;
    } else if (key == "items") {
      if (value.is_object()) {
        result["items"] = Convert(value, depth + 1);
      } else if (value.is_array() && !value.empty()) {
        result["items"] = Convert(value[0], depth + 1);
      }
    } else if (key == "minItems" || key == "maxItems" || key == "minLength" ||
               key == "maxLength" || key == "minProperties" || key == "maxProperties") {
      if (value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)) {
        result[key] = value;
      }
    } else if (key == "minimum" || key == "maximum") {
      if (value.is_number()) result[key] = value;
    } else if (key == "anyOf" || key == "oneOf") {
      if (!value.is_array()) continue;
      OrderedJson& any_of = result["anyOf"];
      if (!any_of.is_array()) any_of = OrderedJson::array();
      for (const OrderedJson& member : value) any_of.push_back(Convert(member, depth + 1));
    } else if (key == "allOf") {
      if (!value.is_array()) continue;
      for (const OrderedJson& member : value) all_of.push_back(Convert(member, depth + 1));
    }
    // Everything else is outside Gemini's Schema message and is dropped.
  }
  for (const OrderedJson& member : all_of) MergeAllOf(member, result);
  if (!format.empty()) {
    auto type = result.find("type");
    if (type != result.end() && type->is_string() &&
        FormatAllowed(type->get<std::string>(), format)) {
      result["format"] = format;
    }
  }
  auto required = result.find("required");
  if (required != result.end()) {
    auto props = result.find("properties");
    OrderedJson kept = OrderedJson::array();
    if (props != result.end() && props->is_object()) {
      for (const OrderedJson& name : *required) {
        if (props->contains(name.get<std::string>())) kept.push_back(name);
      }
    }
    if (kept.empty()) {
      result.erase("required");
    } else {
      *required = std::move(kept);
    }
  }
  return result;
}

}  // namespace

std::optional<OrderedJson> ToGeminiParameters(const OrderedJson& json_schema) {
  if (!json_schema.is_object()) return std::nullopt;
  Converter converter(json_schema);
  OrderedJson converted = converter.Convert(json_schema, 0);
  if (converted.empty() || IsEmptyObject(converted)) return std::nullopt;
  return converted;
}

}  // namespace raw::providers::google
