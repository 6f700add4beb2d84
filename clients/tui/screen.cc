#include "clients/tui/screen.h"

#include "clients/tui/text_width.h"

namespace raw::tui {

void Screen::Resize(int rows, int cols) {
  rows_ = rows;
  cols_ = cols;
  shown_.clear();
}

int Screen::Present(const Lines& frame, const std::optional<CursorPos>& cursor) {
  const bool fresh = shown_.size() != static_cast<size_t>(rows_);
  if (fresh) shown_.assign(static_cast<size_t>(rows_), StyledLine());
  int written = 0;
  for (int row = 0; row < rows_; ++row) {
    StyledLine line = FitToWidth(
        static_cast<size_t>(row) < frame.size() ? frame[static_cast<size_t>(row)] : StyledLine(),
        cols_);
    StyledLine& shown = shown_[static_cast<size_t>(row)];
    if (!fresh && line == shown) continue;
    canvas_.WriteRow(row, line);
    shown = std::move(line);
    ++written;
  }
  if (repaint_) {
    canvas_.ForceRepaint();
    repaint_ = false;
  }
  bool cursor_moved = !committed_ || cursor.has_value() != cursor_.has_value() ||
                      (cursor && (cursor->row != cursor_->row || cursor->col != cursor_->col));
  if (written > 0 || cursor_moved) {
    canvas_.Commit(cursor);
    cursor_ = cursor;
    committed_ = true;
  }
  return written;
}

}  // namespace raw::tui
