#include "daemon/providers/wire_fields.h"

#include <cmath>
#include <limits>
#include <string>

namespace raw::providers {

template <typename J>
const J* FindField(const J& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

template <typename J>
std::string_view StringOf(const J* value) {
  if (value == nullptr || !value->is_string()) return {};
  return value->template get_ref<const std::string&>();
}

template <typename J>
std::optional<int64_t> CountField(const J& object, const char* key) {
  const J* value = FindField(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) {
    uint64_t n = value->template get<uint64_t>();
    if (n > static_cast<uint64_t>(kMaxWireCount)) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  if (value->is_number_integer()) {
    int64_t n = value->template get<int64_t>();
    return n >= 0 && n <= kMaxWireCount ? std::optional<int64_t>(n) : std::nullopt;
  }
  if (value->is_number_float()) {
    double d = value->template get<double>();
    if (d >= 0 && d <= static_cast<double>(kMaxWireCount) && std::floor(d) == d) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

template const Json* FindField(const Json&, const char*);
template const OrderedJson* FindField(const OrderedJson&, const char*);
template std::string_view StringOf(const Json*);
template std::string_view StringOf(const OrderedJson*);
template std::optional<int64_t> CountField(const Json&, const char*);
template std::optional<int64_t> CountField(const OrderedJson&, const char*);

}  // namespace raw::providers
