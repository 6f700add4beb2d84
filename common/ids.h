// Identifiers: random, URL-safe, sortable by creation time.
#pragma once

#include <string>

namespace raw {

// A 26-character id: 10 characters of millisecond time then 16 random ones,
// lower-case base32 (Crockford alphabet). Ids created later sort later.
std::string NewId();

// `prefix` + NewId(), for ids whose kind should be visible ("turn_...").
std::string NewId(const std::string& prefix);

}  // namespace raw
