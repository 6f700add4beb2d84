#include "daemon/providers/openai_responses/wire_fields.h"

#include <cmath>
#include <string>

namespace raw::providers::openai_responses {

const Json* FindField(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string_view StringOf(const Json* value) {
  if (value == nullptr || !value->is_string()) return {};
  return value->get_ref<const std::string&>();
}

std::optional<int64_t> CountField(const Json& object, const char* key) {
  const Json* value = FindField(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) {
    uint64_t n = value->get<uint64_t>();
    if (n > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  if (value->is_number_integer()) {
    int64_t n = value->get<int64_t>();
    return n >= 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  if (value->is_number_float()) {
    double d = value->get<double>();
    if (d >= 0 && d < 9e18 && std::floor(d) == d) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace raw::providers::openai_responses
