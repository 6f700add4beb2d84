#include "daemon/events/json_fields.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::events {

JsonFields::JsonFields(const Json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    status_ = absl::InvalidArgumentError(
        absl::StrCat(path_, ": expected a JSON object, got ", object_.type_name()));
  }
}

void JsonFields::Fail(absl::string_view key, absl::string_view message) {
  if (!status_.ok()) return;
  status_ = absl::InvalidArgumentError(absl::StrCat(path_, ".", key, ": ", message));
}

const Json* JsonFields::Find(const char* key) {
  if (!status_.ok()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end()) {
    status_ = absl::InvalidArgumentError(absl::StrCat(path_, ": missing field \"", key, "\""));
    return nullptr;
  }
  return &*it;
}

void JsonFields::TypeError(const char* key, const char* expected, const Json& value) {
  Fail(key, absl::StrCat("expected ", expected, ", got ", value.type_name()));
}

std::string JsonFields::String(const char* key) {
  const Json* v = Find(key);
  if (v == nullptr) return {};
  if (!v->is_string()) {
    TypeError(key, "a string", *v);
    return {};
  }
  return v->get_ref<const std::string&>();
}

std::string JsonFields::OptionalString(const char* key) {
  if (!object_.is_object() || !object_.contains(key)) return {};
  return String(key);
}

bool JsonFields::OptionalBool(const char* key) {
  if (!object_.is_object() || !object_.contains(key)) return false;
  return Bool(key);
}

bool JsonFields::Bool(const char* key) {
  const Json* v = Find(key);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    TypeError(key, "a boolean", *v);
    return false;
  }
  return v->get<bool>();
}

std::optional<int64_t> JsonFields::Integer(const char* key, int64_t min, int64_t max) {
  const Json* v = Find(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) {
    uint64_t u = v->get<uint64_t>();
    if (u > static_cast<uint64_t>(max)) {
      Fail(key, absl::StrCat("value ", u, " is out of range [", min, ", ", max, "]"));
      return std::nullopt;
    }
    return static_cast<int64_t>(u);
  }
  if (v->is_number_integer()) {
    int64_t i = v->get<int64_t>();
    if (i < min || i > max) {
      Fail(key, absl::StrCat("value ", i, " is out of range [", min, ", ", max, "]"));
      return std::nullopt;
    }
    return i;
  }
  TypeError(key, "an integer", *v);
  return std::nullopt;
}

int JsonFields::Int(const char* key) {
  return static_cast<int>(Integer(key, std::numeric_limits<int>::min(),
                                  std::numeric_limits<int>::max())
                              .value_or(0));
}

int64_t JsonFields::Int64(const char* key) {
  return Integer(key, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())
      .value_or(0);
}

uint64_t JsonFields::Uint64(const char* key) {
  const Json* v = Find(key);
  if (v == nullptr) return 0;
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer()) {
    Fail(key, absl::StrCat("value ", v->get<int64_t>(), " is negative"));
  } else {
    TypeError(key, "a non-negative integer", *v);
  }
  return 0;
}

std::optional<int64_t> JsonFields::OptionalCount(const char* key) {
  if (!status_.ok()) return std::nullopt;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return std::nullopt;
  return Integer(key, 0, std::numeric_limits<int64_t>::max());
}

double JsonFields::Double(const char* key) {
  const Json* v = Find(key);
  if (v == nullptr) return 0;
  if (!v->is_number()) {
    TypeError(key, "a number", *v);
    return 0;
  }
  return v->get<double>();
}

std::optional<double> JsonFields::OptionalDouble(const char* key) {
  if (!status_.ok()) return std::nullopt;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return std::nullopt;
  return Double(key);
}

void JsonFields::ForEach(const char* key, const std::function<void(JsonFields&)>& read) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  if (!v->is_array()) {
    TypeError(key, "an array", *v);
    return;
  }
  for (size_t i = 0; i < v->size() && status_.ok(); ++i) {
    JsonFields element((*v)[i], absl::StrCat(path_, ".", key, "[", i, "]"));
    if (element.status_.ok()) read(element);
    status_ = element.status_;
  }
}

void JsonFields::OptionalForEach(const char* key,
                                 const std::function<void(JsonFields&)>& read) {
  if (!status_.ok() || !object_.is_object()) return;
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return;
  ForEach(key, read);
}

void JsonFields::Nested(const char* key, const std::function<void(JsonFields&)>& read) {
  const Json* v = Find(key);
  if (v == nullptr) return;
  JsonFields nested(*v, absl::StrCat(path_, ".", key));
  if (nested.status_.ok()) read(nested);
  status_ = nested.status_;
}

}  // namespace raw::events
