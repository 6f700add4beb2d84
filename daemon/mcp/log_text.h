// LogText: what an MCP server wrote (a stdout line that is not JSON-RPC, a
// stderr line, the text of a notifications/message, an error message),
// made fit for the daemon's log, which people read with `tail` on a
// terminal: every control character (C0 including newline, CR and tab, DEL,
// C1) and every bidirectional formatting character becomes a visible escape
// ("\n", "\r", "\t", "\x1B", "\u009B", "\u202E"), and every byte that is not
// part of well-formed UTF-8 becomes "\xHH". So no escape sequence reaches a
// terminal, no override reorders a line, and no server forges a log line
// with a newline. Backslashes are kept as they are, so a known secret the
// log filter hides (common/logging.h) is still found whole.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace raw::mcp {

// The most of one server text that a log line quotes.
inline constexpr size_t kMaxLoggedServerTextBytes = 2000;

// `text` escaped as above. Longer than `max_bytes` (of the text, before
// escaping): cut at a character boundary and ended with "…".
std::string LogText(std::string_view text, size_t max_bytes = kMaxLoggedServerTextBytes);

}  // namespace raw::mcp
