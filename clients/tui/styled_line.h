// StyledLine: one row of terminal output as a sequence of styled spans, the
// currency between the render layer (which produces lines for a width) and
// the screen layer (which writes them).
//
// A Style names a semantic role (what the text is: code, a link, an added
// diff line) plus attribute bits; the Palette decides how a role looks on
// the terminal at hand (256 or 16 colours, NO_COLOR, plain mode). Span text
// is UTF-8 without control characters (see SanitizeForTerminal).
//
// Value types; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace raw::tui {

enum class Role : uint8_t {
  kDefault,
  kDim,        // secondary text: reasoning, hints, collapsed results
  kAccent,     // headings, the prompt marker
  kUser,       // the user's own messages
  kCode,       // inline code and fenced code blocks
  kLink,
  kQuote,
  kBorder,     // card and table borders, rules
  kOk,         // tool done, approvals granted
  kRunning,    // tool running, turn working
  kWaiting,    // waiting for approval
  kError,      // errors, denials
  kWarning,
  kDiffAdd,
  kDiffDel,
  kDiffHunk,
  kFooter,     // the footer bar
  kSelected,   // the selected entry of a list or option row
  kCount,
};

enum Attr : uint8_t {
  kAttrNone = 0,
  kAttrBold = 1 << 0,
  kAttrItalic = 1 << 1,
  kAttrUnderline = 1 << 2,
  kAttrStrike = 1 << 3,
  kAttrReverse = 1 << 4,
};

struct Style {
  Role role = Role::kDefault;
  uint8_t attrs = kAttrNone;

  Style With(uint8_t more) const { return Style{role, static_cast<uint8_t>(attrs | more)}; }
  Style As(Role r) const { return Style{r, attrs}; }
  bool operator==(const Style&) const = default;
};

struct Span {
  std::string text;
  Style style;
  bool operator==(const Span&) const = default;
};

struct StyledLine {
  std::vector<Span> spans;

  StyledLine() = default;
  StyledLine(std::string text, Style style = {});

  // Appends, merging with the last span when the style is the same.
  StyledLine& Add(std::string_view text, Style style = {});
  StyledLine& Append(const StyledLine& other);
  // Display columns (see text_width.h).
  int Width() const;
  std::string PlainText() const;
  bool operator==(const StyledLine&) const = default;
};

using Lines = std::vector<StyledLine>;

// The characters used for borders, bullets and markers: Unicode box drawing
// normally, ASCII in plain mode.
struct Glyphs {
  std::string bullet, bullet2, quote_bar, code_bar, rule, ellipsis;
  std::string table_v, table_h, table_cross, table_left, table_right;
  std::string prompt, tool_running, tool_ok, tool_error, tool_waiting, tool_denied;
  std::string collapsed, expanded, branch;
  // Marks a row that continues the one above (a long value wrapped).
  std::string continuation;

  static const Glyphs& Unicode();
  static const Glyphs& Ascii();
};

}  // namespace raw::tui
