// Character references as gumbo decodes them in text, for the streaming
// HTML parser (fast_page_text.h): the named references of a common set
// (with their ';'; any other name is left to gumbo) and every numeric one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace raw::raven::web::html {

struct NamedReference {
  std::string_view name;  // without '&' and ';'
  char32_t code_point;
};

// The set, sorted by name.
absl::Span<const NamedReference> NamedReferences();
// The reference named `name`, or nullptr when it is not in the set.
const NamedReference* FindNamedReference(std::string_view name);
// What gumbo makes of a numeric reference's value: 0, surrogates and values
// past U+10FFFF become U+FFFD, 0x80..0x9F the windows-1252 characters pages
// mean by them.
char32_t NumericReferenceValue(uint32_t v);

}  // namespace raw::raven::web::html
