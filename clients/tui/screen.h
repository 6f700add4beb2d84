// Screen: writes frames to a Canvas, only the rows that changed.
//
// The app composes a whole frame (one StyledLine per terminal row) each
// time something changes; Present compares it with the frame on screen and
// hands only the differing rows to the canvas, then commits once (one
// wnoutrefresh + doupdate for curses). Nothing is ever cleared as a whole:
// a streamed answer touches the rows it grows into and nothing else.
//
// Canvas is the seam to the terminal: CursesCanvas (curses_canvas.h) draws
// with ncursesw; tests record what was written.
//
// Single-threaded (the UI thread).
#pragma once

#include <optional>

#include "clients/tui/styled_line.h"

namespace raw::tui {

struct CursorPos {
  int row = 0;
  int col = 0;
};

class Canvas {
 public:
  virtual ~Canvas() = default;
  // `line` is exactly the canvas width wide (padded by the screen).
  virtual void WriteRow(int row, const StyledLine& line) = 0;
  // Makes the written rows visible; shows the cursor at `cursor` or hides it.
  virtual void Commit(const std::optional<CursorPos>& cursor) = 0;
  // The next Commit sends every cell to the terminal, not only the ones the
  // canvas believes changed: something else wrote to the terminal.
  virtual void ForceRepaint() {}
};

class Screen {
 public:
  explicit Screen(Canvas& canvas) : canvas_(canvas) {}

  // A new size: the next Present writes every row.
  void Resize(int rows, int cols);
  // Forgets what is on screen (after the terminal was used by someone else).
  void Invalidate() { shown_.clear(); }
  // Invalidate, and the next Present also has the canvas repaint every cell
  // of the terminal (Ctrl-L: whatever else wrote there is overwritten).
  void Repaint() {
    shown_.clear();
    repaint_ = true;
  }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  // `frame` has at most rows() lines (missing rows are blank). Returns how
  // many rows were written.
  int Present(const Lines& frame, const std::optional<CursorPos>& cursor);

 private:
  Canvas& canvas_;
  int rows_ = 0;
  int cols_ = 0;
  Lines shown_;
  std::optional<CursorPos> cursor_;
  bool committed_ = false;
  bool repaint_ = false;
};

}  // namespace raw::tui
