#include "clients/tui/curses_canvas.h"

// curses declares a global function raw(), which cannot coexist with the
// namespace raw in one translation unit: it is renamed away here (and not
// called; Terminal sets raw input through termios).
#define raw curses_raw_unused
#include <curses.h>
#undef raw
#include <wchar.h>

#include <cwchar>
#include <string>

#include "clients/tui/text_width.h"

namespace raw::tui {

CursesCanvas::CursesCanvas(const Palette& palette) : palette_(palette) {
  colors_ = palette.depth() != ColorDepth::kNone && has_colors();
  if (!colors_) return;
  for (int r = 0; r < static_cast<int>(Role::kCount); ++r) {
    const RoleLook& look = palette.Look(static_cast<Role>(r));
    init_pair(static_cast<short>(r + 1), static_cast<short>(look.fg < COLORS ? look.fg : -1),
              static_cast<short>(look.bg < COLORS ? look.bg : -1));
  }
}

unsigned CursesCanvas::AttrsFor(const Style& style) const {
  const RoleLook& look = palette_.Look(style.role);
  uint8_t attrs = style.attrs | look.attrs;
  unsigned a = A_NORMAL;
  if (attrs & kAttrBold) a |= A_BOLD;
  if (attrs & kAttrItalic) a |= A_ITALIC;
  if (attrs & kAttrUnderline) a |= A_UNDERLINE;
  if (attrs & kAttrReverse) a |= A_REVERSE;
  if (attrs & kAttrStrike) a |= A_DIM;  // curses has no strike-through
  if (look.dim) a |= A_DIM;
  if (colors_ && (look.fg >= 0 || look.bg >= 0)) {
    a |= static_cast<unsigned>(COLOR_PAIR(static_cast<int>(style.role) + 1));
  }
  return a;
}

namespace {

// Columns curses advances for `text` (a cluster's terminal form) under the
// process's locale, or -1 when it would show a code point another way.
int CursesWidth(const std::string& text) {
  std::mbstate_t state{};
  int width = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    wchar_t wc = 0;
    size_t n = std::mbrtowc(&wc, text.data() + pos, text.size() - pos, &state);
    if (n == 0 || n == static_cast<size_t>(-1) || n == static_cast<size_t>(-2)) return -1;
    int w = wcwidth(wc);
    if (w < 0) return -1;
    width += w;
    pos += n;
  }
  return width;
}

}  // namespace

void CursesCanvas::WriteRow(int row, const StyledLine& line) {
  wmove(stdscr, row, 0);
  int col = 0;
  for (const Span& span : line.spans) {
    // Each cluster goes out in its terminal form, which curses advances by
    // exactly the width the layout gave it; should this locale disagree,
    // the cluster is shown as that many U+FFFD instead, so no row ever
    // runs past its end (and hides its tail) or falls short.
    std::string text;
    int end = col;
    ForEachGrapheme(span.text, [&](std::string_view cluster, int width) {
      std::string form = TerminalForm(cluster);
      if (CursesWidth(form) == width) {
        text += form;
      } else {
        for (int i = 0; i < width; ++i) text += "\xEF\xBF\xBD";
      }
      end += width;
    });
    wattrset(stdscr, static_cast<int>(AttrsFor(span.style)));
    waddnstr(stdscr, text.c_str(), static_cast<int>(text.size()));
    col = end;
    if (getcury(stdscr) != row || getcurx(stdscr) != col) wmove(stdscr, row, col);
  }
  wattrset(stdscr, A_NORMAL);
  // The line was padded to the width; this only matters if it was not.
  if (col < COLS) wclrtoeol(stdscr);
}

void CursesCanvas::ForceRepaint() { redrawwin(stdscr); }

void CursesCanvas::Commit(const std::optional<CursorPos>& cursor) {
  if (cursor) {
    wmove(stdscr, cursor->row, cursor->col);
    curs_set(1);
  } else {
    curs_set(0);
  }
  wnoutrefresh(stdscr);
  doupdate();
}

}  // namespace raw::tui
