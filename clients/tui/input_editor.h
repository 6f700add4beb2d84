// InputEditor: the multi-line prompt editor.
//
// Holds UTF-8 text and a cursor (a byte offset on a grapheme boundary).
// Enter is the caller's business (it sends); InsertNewline adds a line.
// Up and Down move between lines and, at the first or last line, walk the
// history of earlier prompts (the draft is kept and comes back). Render
// soft-wraps the text for a width and reports where the cursor is.
//
// Single-threaded; no I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clients/tui/styled_line.h"

namespace raw::tui {

class InputEditor {
 public:
  struct View {
    Lines lines;
    int cursor_row = 0;
    int cursor_col = 0;
  };

  const std::string& text() const { return text_; }
  size_t cursor() const { return cursor_; }
  bool empty() const { return text_.empty(); }
  void SetText(std::string text);  // cursor at the end
  // Returns the text and empties the editor (added to the history when not
  // blank).
  std::string Take();

  void Insert(std::string_view text);
  void InsertNewline() { Insert("\n"); }
  void Backspace();
  void Delete();
  void Left();
  void Right();
  void WordLeft();
  void WordRight();
  void Home();  // start of the line
  void End();   // end of the line
  void KillToStart();  // Ctrl-U
  void KillToEnd();    // Ctrl-K
  void DeleteWordBack();  // Ctrl-W
  // Up/Down within the text; at its edge, the previous or next prompt.
  void Up();
  void Down();

  void SetHistory(std::vector<std::string> history);
  void AddHistory(const std::string& entry);

  // Lines of `width` columns after `prompt` (continuation lines are indented
  // by the prompt's width); at most `max_rows`, scrolled to the cursor.
  View Render(int width, const StyledLine& prompt, int max_rows) const;

 private:
  size_t LineStart(size_t pos) const;
  size_t LineEnd(size_t pos) const;
  size_t PrevBoundary(size_t pos) const;
  size_t NextBoundary(size_t pos) const;
  // The columns Render gives one grapheme cluster: a tab shows as four
  // spaces wherever it stands (each cluster is sanitized on its own), so
  // Up and Down, which move by column, count it the same way.
  static int ClusterColumns(std::string_view cluster);
  // Display column of `pos` within its line, as Render lays it out.
  int ColumnOf(size_t pos) const;
  // The position in the line starting at `start` closest to `column`.
  size_t AtColumn(size_t start, int column) const;
  void Recall(size_t index);

  std::string text_;
  size_t cursor_ = 0;
  std::vector<std::string> history_;
  size_t history_index_ = 0;  // == history_.size(): the draft
  std::string draft_;
};

}  // namespace raw::tui
