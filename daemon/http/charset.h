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

// The encoding a charset label means, as browsers decode it (the WHATWG
// Encoding Standard's label table), lower-cased and named so iconv(3) knows
// it: "iso-8859-1", "latin1", "us-ascii" and the other Latin-1 and ASCII
// labels are "windows-1252" (pages that declare them use its curly quotes
// and dashes at 0x80-0x9F), "iso-8859-9" is "windows-1254", "euc-kr" is
// "cp949", "gb2312" is "gb18030", a bare "utf-16" is "utf-16le", every UTF-8
// alias is "utf-8". Another label is returned lower-cased and trimmed.
std::string EncodingForLabel(std::string_view label);

// The charset named by a <meta charset> or <meta http-equiv content> in the
// first 2 KiB of an HTML page, lower-cased; "" when none. A UTF-16 label is
// "utf-8", as in HTML's prescan: a page whose ASCII markup could be read to
// find the <meta> is not UTF-16.
std::string MetaCharset(std::string_view body);

// The charset a byte-order mark at the start of `body` declares ("utf-8",
// "utf-16le", "utf-16be"); "" when there is none. A BOM overrides any
// declaration (the HTML encoding sniffing rules).
std::string BomCharset(std::string_view body);

// `body` converted from the encoding `charset` labels (EncodingForLabel) to
// UTF-8 with iconv(3); "" means UTF-8. Invalid or truncated sequences
// become U+FFFD. An unknown charset is InvalidArgument naming it.
absl::StatusOr<std::string> ToUtf8(std::string_view body, const std::string& charset);

}  // namespace raw::http
