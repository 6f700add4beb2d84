// CursesCanvas: the Canvas on a real terminal, through ncursesw.
//
// Each role of the Palette gets one colour pair (created once); a row is
// written with wmove + waddnstr per span (each grapheme cluster in its
// TerminalForm, so curses advances exactly the columns the layout measured)
// + wclrtoeol, and Commit is one
// wnoutrefresh + doupdate, so curses sends the terminal only the cells
// that differ. Never clears the screen.
//
// REQUIRES: curses initialized (Terminal) on the UI thread; single-threaded.
#pragma once

#include "clients/tui/palette.h"
#include "clients/tui/screen.h"

namespace raw::tui {

class CursesCanvas : public Canvas {
 public:
  explicit CursesCanvas(const Palette& palette);

  void WriteRow(int row, const StyledLine& line) override;
  void Commit(const std::optional<CursorPos>& cursor) override;
  // redrawwin: curses forgets what the terminal shows (without clearing it),
  // so the next doupdate rewrites every cell.
  void ForceRepaint() override;

 private:
  unsigned AttrsFor(const Style& style) const;

  const Palette& palette_;
  bool colors_ = false;
};

}  // namespace raw::tui
