#include "clients/tui/curses_canvas.h"

// curses declares a global function raw(), which cannot coexist with the
// namespace raw in one translation unit: it is renamed away here (and not
// called; Terminal sets raw input through termios).
#define raw curses_raw_unused
#include <curses.h>
#undef raw

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

void CursesCanvas::WriteRow(int row, const StyledLine& line) {
  wmove(stdscr, row, 0);
  for (const Span& span : line.spans) {
    wattrset(stdscr, static_cast<int>(AttrsFor(span.style)));
    waddnstr(stdscr, span.text.c_str(), static_cast<int>(span.text.size()));
  }
  wattrset(stdscr, A_NORMAL);
  // The line was padded to the width; this only matters when curses
  // measured a character narrower than the render layer did.
  if (getcurx(stdscr) > 0 && getcury(stdscr) == row) wclrtoeol(stdscr);
}

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
