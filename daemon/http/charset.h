// The character set of an HTTP body and its conversion to UTF-8, shared by
// builtin/web_fetch and Raven's Source verifier.
//
// Stateless functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::http {

// The value of parameter `name` (case-insensitive) in a header value like
// "text/html; charset=UTF-8", lower-cased and unquoted; "" when absent.
std::string HeaderParameter(std::string_view header, std::string_view name);

// The charset named by a <meta charset> or <meta http-equiv content> in the
// first 2 KiB of an HTML page, lower-cased; "" when none.
std::string MetaCharset(std::string_view body);

// The charset a byte-order mark at the start of `body` declares ("utf-8",
// "utf-16le", "utf-16be"); "" when there is none. A BOM overrides any
// declaration (the HTML encoding sniffing rules).
std::string BomCharset(std::string_view body);

// `body` converted from `charset` to UTF-8 with iconv(3); "" (or a UTF-8
// alias) means UTF-8. Invalid or truncated sequences become U+FFFD. An
// unknown charset is InvalidArgument naming it.
absl::StatusOr<std::string> ToUtf8(std::string_view body, const std::string& charset);

}  // namespace raw::http
