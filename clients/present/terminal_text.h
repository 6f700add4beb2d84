// Text for a terminal from sources Raw does not control (the model, tools,
// hooks, MCP servers, the daemon's messages): every surface that writes
// such text to a terminal passes it through SanitizeForTerminal first, so
// that no escape sequence or control character it holds can move the
// cursor, erase lines, retitle the window or otherwise act on the terminal,
// and no invisible character can reorder or hide what is around it (in an
// approval, the text a user decides on).
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace raw::present {

enum class Tabs {
  kExpand,  // to spaces up to the next multiple of 4 code points (a screen)
  kKeep,    // as they are (a terminal stream: the terminal expands them)
};

// Replaces control characters (C0 except newline and tab, DEL, C1, and
// invalid UTF-8) with U+FFFD, drops carriage returns (a lone CR would move
// the cursor), and expands or keeps tabs. An ESC therefore never reaches
// the terminal: "\e[1A" becomes "\uFFFD[1A".
// Shows invisible characters as markers such as "⟨U+202E⟩", as the
// dashboard does: format characters (bidi embeddings, overrides, isolates
// and marks, zero-width spaces, joiners and no-break spaces, tags), line
// and paragraph separators and every other Default_Ignorable_Code_Point.
// Kept are only what shapes an emoji: one VS15/VS16 presentation selector
// after a visible character (or at the start of the text), and a zero-width
// joiner between two emoji (after the first's selector or skin-tone
// modifier), so "⚠️" and "👩🏽‍💻" still show as emoji.
std::string SanitizeForTerminal(std::string_view text, Tabs tabs = Tabs::kExpand);

// Whether `cp` is invisible: a format character (bidi controls, zero-width
// spaces and joiners, tags, ...), a line or paragraph separator, or another
// Default_Ignorable_Code_Point. SanitizeForTerminal shows such a code point
// as its CodePointMarker unless it shapes an emoji.
bool IsInvisibleCodePoint(int32_t cp);

// "⟨U+202E⟩": as many columns as code points (digits + 4).
std::string CodePointMarker(int32_t cp);

// `text` with every carriage return shown as the marker "⟨U+000D⟩", for
// what a user decides on (an approval's arguments, reason and rules), where
// SanitizeForTerminal's dropping of it would hide part of a command: bash
// runs "cd /x\r; rm -rf *" as a cd to "/x\r", which fails, and then the rm.
std::string ShowCarriageReturns(std::string_view text);

// ShowCarriageReturns that also shows each line feed as "⟨U+000A⟩": for a
// one-line item of an approval (its reason, a session rule) that quotes a
// command, so that the command's own lines cannot start lines of their own
// that read like the approval's.
std::string ShowLineBreaks(std::string_view text);

// `text` with the runs of blanks (spaces, tabs, other Unicode spaces such
// as U+00A0) that could push what follows to the start of a row shown as
// markers: "ls⟨37 spaces⟩description: ..." For what a user decides on (an
// approval), where a run padded to the terminal's edge would make the rest
// of a value wrap to a row that reads like an argument of its own. Shown
// are runs of 4 or more spaces, runs at the end of a line or of the text,
// and every run with a tab or another space in it ("⟨2 tabs⟩",
// "⟨U+00A0⟩"); kept are shorter runs of spaces between words and a line's
// indentation of spaces and tabs up to 16 columns (tabs counted as 8), so
// code still reads as code.
std::string ShowBlankRuns(std::string_view text);

// SanitizeForTerminal keeping tabs: for text written to a terminal stream
// (`raw run`), where the terminal expands tabs itself.
// (absl::string_view: also takes absl::Status messages.)
inline std::string SanitizeForStream(absl::string_view text) {
  return SanitizeForTerminal(std::string_view(text.data(), text.size()), Tabs::kKeep);
}

// How many bytes at the end of `text` a stream of pieces holds back until
// the next piece: the start of a UTF-8 sequence whose remaining bytes have
// not arrived yet (1 to 3), so that a character split between two pieces
// is not replaced; and before that, a trailing emoji sequence (emoji
// joined by joiners, each with its selector or modifiers; at most 16 code
// points) or a trailing joiner, so that a selector or joiner at the start
// of the next piece is judged next to what it follows, as
// SanitizeForTerminal would judge the whole text. 0 when nothing waits.
size_t IncompleteUtf8Tail(std::string_view text);

}  // namespace raw::present
