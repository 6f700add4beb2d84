#include "common/json_strings.h"

#include <utility>

namespace raw {

void MapJsonStrings(Json& value, const std::function<std::string(const std::string&)>& fn) {
  if (value.is_string()) {
    value = fn(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    for (Json& element : value) MapJsonStrings(element, fn);
  } else if (value.is_object()) {
    Json mapped = Json::object();
    for (auto& [key, element] : value.items()) {
      MapJsonStrings(element, fn);
      mapped[fn(key)] = std::move(element);
    }
    value = std::move(mapped);
  }
}

}  // namespace raw
