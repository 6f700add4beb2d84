// Display widths of UTF-8 text, and the word wrapping built on them.
//
// Text is cut into grapheme clusters (utf8proc) so that wrapping never splits
// one, but a cluster is as wide as ncursesw draws it: the sum of the C
// library's wcwidth (under a UTF-8 locale) over its code points. ncursesw
// advances by exactly that, and so do most terminals, so what the layout
// measures is what appears: East Asian wide characters and emoji take two
// columns, combining marks none, a spacing vowel sign such as U+093F one, an
// emoji with a skin tone four and a ZWJ family the sum of its members. What
// is written for a cluster is its TerminalForm, which has exactly that width
// (VS16 is dropped, so no terminal widens a text-default symbol behind the
// layout's back). Terminals that join a cluster's code points (a skin-toned
// emoji in two columns) show it narrower, never wider, so no row's end is
// pushed past the right margin.
//
// Text that reaches the terminal first goes through SanitizeForTerminal, so
// that nothing a model or a tool printed can emit control sequences.
//
// Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "clients/present/terminal_text.h"
#include "clients/tui/styled_line.h"

namespace raw::tui {

// Calls `fn(cluster, width)` for each grapheme cluster of `text`. Invalid
// UTF-8 bytes are clusters of their own of width 1.
void ForEachGrapheme(std::string_view text,
                     const std::function<void(std::string_view cluster, int width)>& fn);

// What a terminal is sent for `cluster` (one grapheme cluster): the cluster
// without controls and U+FE0F, with code points the C library gives no width
// (unassigned ones) and invalid bytes as U+FFFD. Its width, summed over its
// code points with wcwidth, is the width ForEachGrapheme reports.
std::string TerminalForm(std::string_view cluster);

// Columns `text` takes on a terminal.
int DisplayWidth(std::string_view text);

// Replaces control characters (C0 except newline, DEL, C1, and invalid
// UTF-8) with U+FFFD or, for tabs, spaces to the next multiple of 4
// (present/terminal_text.h, shared with `raw run`).
using present::SanitizeForTerminal;

// The longest prefix of `text` that fits in `width` columns, with
// `ellipsis` replacing the rest when it does not all fit.
std::string TruncateToWidth(std::string_view text, int width, std::string_view ellipsis);

// Cuts `line` to `width` columns (no ellipsis) and pads it with spaces in
// `pad` style to exactly `width`.
StyledLine FitToWidth(const StyledLine& line, int width, Style pad = {});

// Word-wraps `text` (spans, which may contain '\n' as a forced break) into
// lines of at most `width` columns. The first line starts with `first`,
// later ones with `rest`. Words longer than a line are broken between
// grapheme clusters. Runs of spaces at a break are dropped.
Lines WrapSpans(const StyledLine& text, int width, const StyledLine& first = {},
                const StyledLine& rest = {});

// Breaks `text` into lines of exactly `width` columns (the last may be
// shorter), without looking for word boundaries: for code and diffs.
Lines HardWrap(const StyledLine& text, int width, const StyledLine& first = {},
               const StyledLine& rest = {});

}  // namespace raw::tui
