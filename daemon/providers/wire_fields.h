// Lenient readers of fields in provider wire JSON: a missing key, a null
// and a value of the wrong type all read as absent, never as an error
// (providers add fields and send nulls freely). For Json and OrderedJson
// (Gemini's decoder keeps key order).
//
// Pure functions; thread-safe. Returned pointers and views borrow from the
// given document.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/json.h"

namespace raw::providers {

// The value under `key`, or nullptr when `object` is not an object or the
// value is missing or null.
template <typename J>
const J* FindField(const J& object, const char* key);

// The string `value` holds; "" for nullptr or a non-string.
template <typename J>
std::string_view StringOf(const J* value);

// Counts above this (about 10^12) are absurd for any request: a broken or
// hostile endpoint. Reading them as unknown keeps every sum the daemon makes
// of a few counts (input plus cache reads plus cache writes, a session's
// totals) far from int64 overflow.
inline constexpr int64_t kMaxWireCount = int64_t{1} << 40;

// A token count or an index: a non-negative whole number up to
// kMaxWireCount (a float with no fraction counts); anything else is unknown.
template <typename J>
std::optional<int64_t> CountField(const J& object, const char* key);

}  // namespace raw::providers
