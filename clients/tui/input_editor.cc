#include "clients/tui/input_editor.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "clients/tui/text_width.h"

namespace raw::tui {

void InputEditor::SetText(std::string text) {
  text_ = std::move(text);
  cursor_ = text_.size();
}

std::string InputEditor::Take() {
  std::string text = std::move(text_);
  text_.clear();
  cursor_ = 0;
  if (!absl::StripAsciiWhitespace(text).empty()) AddHistory(text);
  history_index_ = history_.size();
  draft_.clear();
  return text;
}

void InputEditor::Insert(std::string_view text) {
  // Pasted text may bring carriage returns and other controls; newlines
  // and tabs are kept, CR LF becomes LF.
  std::string clean;
  clean.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      c = '\n';
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') continue;
    clean.push_back(c);
  }
  text_.insert(cursor_, clean);
  cursor_ += clean.size();
}

size_t InputEditor::PrevBoundary(size_t pos) const {
  if (pos == 0) return 0;
  if (text_[pos - 1] == '\n') return pos - 1;
  size_t start = LineStart(pos);
  size_t prev = start;
  ForEachGrapheme(std::string_view(text_).substr(start, pos - start),
                  [&](std::string_view cluster, int) {
                    prev = static_cast<size_t>(cluster.data() - text_.data());
                  });
  return prev;
}

size_t InputEditor::NextBoundary(size_t pos) const {
  if (pos >= text_.size()) return text_.size();
  if (text_[pos] == '\n') return pos + 1;
  size_t end = LineEnd(pos);
  size_t next = end;
  bool found = false;
  ForEachGrapheme(std::string_view(text_).substr(pos, end - pos),
                  [&](std::string_view cluster, int) {
                    if (found) return;
                    next = static_cast<size_t>(cluster.data() - text_.data()) + cluster.size();
                    found = true;
                  });
  return next;
}

size_t InputEditor::LineStart(size_t pos) const {
  size_t nl = pos == 0 ? std::string::npos : text_.rfind('\n', pos - 1);
  return nl == std::string::npos ? 0 : nl + 1;
}

size_t InputEditor::LineEnd(size_t pos) const {
  size_t nl = text_.find('\n', pos);
  return nl == std::string::npos ? text_.size() : nl;
}

int InputEditor::ClusterColumns(std::string_view cluster) {
  return DisplayWidth(SanitizeForTerminal(cluster));
}

int InputEditor::ColumnOf(size_t pos) const {
  size_t start = LineStart(pos);
  int column = 0;
  ForEachGrapheme(std::string_view(text_).substr(start, pos - start),
                  [&column](std::string_view cluster, int) { column += ClusterColumns(cluster); });
  return column;
}

size_t InputEditor::AtColumn(size_t start, int column) const {
  size_t end = LineEnd(start);
  size_t pos = start;
  int used = 0;
  bool done = false;
  ForEachGrapheme(std::string_view(text_).substr(start, end - start),
                  [&](std::string_view cluster, int) {
                    if (done) return;
                    const int w = ClusterColumns(cluster);
                    if (used + w > column) {
                      done = true;
                      return;
                    }
                    used += w;
                    pos = static_cast<size_t>(cluster.data() - text_.data()) + cluster.size();
                  });
  return pos;
}

void InputEditor::Backspace() {
  size_t prev = PrevBoundary(cursor_);
  text_.erase(prev, cursor_ - prev);
  cursor_ = prev;
}

void InputEditor::Delete() {
  size_t next = NextBoundary(cursor_);
  text_.erase(cursor_, next - cursor_);
}

void InputEditor::Left() { cursor_ = PrevBoundary(cursor_); }
void InputEditor::Right() { cursor_ = NextBoundary(cursor_); }

void InputEditor::WordLeft() {
  while (cursor_ > 0 && absl::ascii_isspace(static_cast<unsigned char>(text_[cursor_ - 1]))) --cursor_;
  while (cursor_ > 0 && !absl::ascii_isspace(static_cast<unsigned char>(text_[cursor_ - 1]))) {
    cursor_ = PrevBoundary(cursor_);
  }
}

void InputEditor::WordRight() {
  while (cursor_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[cursor_]))) ++cursor_;
  while (cursor_ < text_.size() && !absl::ascii_isspace(static_cast<unsigned char>(text_[cursor_]))) {
    cursor_ = NextBoundary(cursor_);
  }
}

void InputEditor::Home() { cursor_ = LineStart(cursor_); }
void InputEditor::End() { cursor_ = LineEnd(cursor_); }

void InputEditor::KillToStart() {
  size_t start = LineStart(cursor_);
  if (start == cursor_ && start > 0) --start;  // at a line start: join with the previous line
  text_.erase(start, cursor_ - start);
  cursor_ = start;
}

void InputEditor::KillToEnd() {
  size_t end = LineEnd(cursor_);
  if (end == cursor_ && end < text_.size()) ++end;  // the newline
  text_.erase(cursor_, end - cursor_);
}

void InputEditor::DeleteWordBack() {
  size_t end = cursor_;
  WordLeft();
  text_.erase(cursor_, end - cursor_);
}

void InputEditor::Up() {
  size_t start = LineStart(cursor_);
  if (start == 0) {
    if (history_index_ > 0) Recall(history_index_ - 1);
    return;
  }
  int column = ColumnOf(cursor_);
  cursor_ = AtColumn(LineStart(start - 1), column);
}

void InputEditor::Down() {
  size_t end = LineEnd(cursor_);
  if (end == text_.size()) {
    if (history_index_ < history_.size()) Recall(history_index_ + 1);
    return;
  }
  int column = ColumnOf(cursor_);
  cursor_ = AtColumn(end + 1, column);
}

void InputEditor::Recall(size_t index) {
  if (history_index_ == history_.size()) draft_ = text_;
  history_index_ = index;
  SetText(index == history_.size() ? draft_ : history_[index]);
}

void InputEditor::SetHistory(std::vector<std::string> history) {
  history_ = std::move(history);
  history_index_ = history_.size();
}

void InputEditor::AddHistory(const std::string& entry) {
  if (history_.empty() || history_.back() != entry) history_.push_back(entry);
  history_index_ = history_.size();
}

InputEditor::View InputEditor::Render(int width, const StyledLine& prompt, int max_rows) const {
  View view;
  const int indent = prompt.Width();
  const int room = std::max(1, width - indent);
  StyledLine pad(std::string(static_cast<size_t>(indent), ' '));
  // Lay out logical lines, soft-wrapping by columns, and find the cursor.
  size_t start = 0;
  bool first = true;
  for (;;) {
    size_t end = LineEnd(start);
    std::string_view line = std::string_view(text_).substr(start, end - start);
    StyledLine row = first ? prompt : pad;
    int col = 0;
    bool cursor_here = cursor_ >= start && cursor_ <= end;
    size_t offset = start;
    auto place_cursor = [&](size_t at) {
      if (cursor_here && cursor_ == at) {
        view.cursor_row = static_cast<int>(view.lines.size());
        view.cursor_col = indent + col;
      }
    };
    ForEachGrapheme(line, [&](std::string_view cluster, int) {
      std::string shown = SanitizeForTerminal(cluster);
      int sw = ClusterColumns(cluster);
      if (col + sw > room) {
        view.lines.push_back(std::move(row));
        row = pad;
        col = 0;
      }
      place_cursor(offset);
      row.Add(shown);
      col += sw;
      offset += cluster.size();
    });
    if (col >= room && cursor_here && cursor_ == end) {
      view.lines.push_back(std::move(row));
      row = pad;
      col = 0;
    }
    place_cursor(end);
    view.lines.push_back(std::move(row));
    first = false;
    if (end >= text_.size()) break;
    start = end + 1;
  }
  if (max_rows > 0 && static_cast<int>(view.lines.size()) > max_rows) {
    int first_row = std::clamp(view.cursor_row - max_rows + 1, 0,
                               static_cast<int>(view.lines.size()) - max_rows);
    view.lines.erase(view.lines.begin(), view.lines.begin() + first_row);
    view.lines.resize(static_cast<size_t>(max_rows));
    view.cursor_row -= first_row;
  }
  return view;
}

}  // namespace raw::tui
