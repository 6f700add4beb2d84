// Identifiers: random, URL-safe, sortable by creation time.
#pragma once

#include <string>
#include <string_view>

namespace raw {

// A 26-character id: 10 characters of millisecond time then 16 random ones,
// lower-case base32 (Crockford alphabet). Ids created later sort later.
std::string NewId();

// `prefix` + NewId(), for ids whose kind should be visible ("turn_...").
std::string NewId(const std::string& prefix);

// True when `id` has the form of NewId(prefix): `prefix` then 26 characters
// of NewId's alphabet. (Its time and randomness are not checked.)
bool IsIdOfForm(std::string_view id, std::string_view prefix);

}  // namespace raw
