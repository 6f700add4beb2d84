// Display widths of UTF-8 text, and the word wrapping built on them.
//
// Text is cut into grapheme clusters (utf8proc) so that wrapping never splits
// one, but a cluster is as wide as ncursesw draws it: the sum of the C
// library's wcwidth (under a UTF-8 locale) over its code points. ncursesw
// advances by exactly that, and so do most terminals, so what the layout
// measures is what appears: East Asian wide characters and emoji take two
// columns, combining marks none, a spacing vowel sign such as U+093F one, an
// emoji with a skin tone four and a ZWJ family the sum of its members. What
// is written for a cluster is its TerminalForm, which has exactly that width:
// VS16 is dropped, so no terminal widens a text-default symbol behind the
// layout's back, and so is ZWJ (U+200D), so no terminal narrows a joined
// sequence: tmux 3.3 draws a character after a ZWJ in the cell before it
// (a ZWJ family in two columns, while ncursesw advances six; Devanagari
// with a ZWJ one column short too), other terminals join emoji sequences or
// not, and without the joiner every one of them draws the members side by
// side, as wide as ncursesw counts them. Terminals that join a cluster's
// code points without a joiner (a skin-toned emoji in two columns) show it
// narrower, never wider, so no row's end is pushed past the right margin.
//
// Text that reaches the terminal first goes through SanitizeForTerminal, so
// that nothing a model or a tool printed can emit control sequences. The
// terminal form is the last filter for text that did not: besides dropping
// controls, it shows every invisible code point (a bidi override, a
// zero-width space, a tag character; present::IsInvisibleCodePoint) as its
// marker ("⟨U+202E⟩", laid out as that many columns, a cluster of its own),
// except those SanitizeForTerminal keeps to shape an emoji (VS15, and VS16
// and ZWJ, which are dropped as said above). So no surface that forgets to
// sanitize can let such a character reorder or hide what is around it.
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
// without controls, U+FE0F and U+200D, with other invisible code points as
// their markers, and code points the C library gives no width (unassigned
// ones) and invalid bytes as U+FFFD. Its width, summed over its code points
// with wcwidth, is the width ForEachGrapheme reports.
std::string TerminalForm(std::string_view cluster);

// Columns `text` takes on a terminal.
int DisplayWidth(std::string_view text);

// Replaces control characters (C0 except newline, DEL, C1, and invalid
// UTF-8) with U+FFFD or, for tabs, spaces to the next multiple of 4
// (present/terminal_text.h, shared with `raw run`).
using present::SanitizeForTerminal;

// SanitizeForTerminal for text that must stay on one row or line (a name,
// a path, a status): its line breaks shown as markers too
// (present::ShowLineBreaks).
std::string SanitizeLine(std::string_view text);

// The longest prefix of `text` that fits in `width` columns, with
// `ellipsis` replacing the rest when it does not all fit.
std::string TruncateToWidth(std::string_view text, int width, std::string_view ellipsis);

// Cuts `line` to `width` columns (no ellipsis) and pads it with spaces in
// `pad` style to exactly `width`.
StyledLine FitToWidth(const StyledLine& line, int width, Style pad = {});

// What word wrapping does with a run of spaces where it breaks a line.
enum class SpacesAtBreaks {
  kDrop,  // prose: the break stands for them
  // Exact text (a rule, a command): every space is kept, at the end of the
  // line while it fits and at the start of the next one after that, so the
  // rows hold the text character for character.
  kKeep,
};

// Word-wraps `text` (spans, which may contain '\n' as a forced break) into
// lines of at most `width` columns. The first line starts with `first`,
// later ones with `rest`. Words longer than a line are broken between
// grapheme clusters. Runs of spaces at a break are dropped unless `spaces`
// says to keep them.
Lines WrapSpans(const StyledLine& text, int width, const StyledLine& first = {},
                const StyledLine& rest = {}, SpacesAtBreaks spaces = SpacesAtBreaks::kDrop);

// Breaks `text` into lines of exactly `width` columns (the last may be
// shorter), without looking for word boundaries: for code and diffs.
Lines HardWrap(const StyledLine& text, int width, const StyledLine& first = {},
               const StyledLine& rest = {});

}  // namespace raw::tui
