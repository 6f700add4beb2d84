// Lenient readers of fields in Responses wire JSON: a missing key, a null
// and a value of the wrong type all read as absent, never as an error
// (providers add fields and send nulls freely).
//
// Pure functions; thread-safe. Returned pointers and views borrow from the
// given document.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/json.h"

namespace raw::providers::openai_responses {

// The value under `key`, or nullptr when `object` is not an object or the
// value is missing or null.
const Json* FindField(const Json& object, const char* key);

// The string `value` holds; "" for nullptr or a non-string.
std::string_view StringOf(const Json* value);

// A token count or an index: a non-negative whole number; anything else is
// unknown.
std::optional<int64_t> CountField(const Json& object, const char* key);

}  // namespace raw::providers::openai_responses
