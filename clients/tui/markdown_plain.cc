#include "clients/tui/markdown_plain.h"

#include <algorithm>
#include <string>
#include <utility>

#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

struct FenceLine {
  OpenCodeFence fence;
  int indent = 0;
  std::string_view info;
};

// An opening fence line as CommonMark reads one: at most three spaces, a
// run of three or more backticks or tildes, an info string (without
// backticks after backticks).
std::optional<FenceLine> OpensFence(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  FenceLine out;
  out.indent = static_cast<int>(i);
  out.fence.fence_char = line[i];
  size_t run = i;
  while (run < line.size() && line[run] == out.fence.fence_char) ++run;
  out.fence.fence_length = static_cast<int>(run - i);
  if (out.fence.fence_length < 3) return std::nullopt;
  std::string_view info = line.substr(run);
  if (out.fence.fence_char == '`' && info.find('`') != std::string_view::npos) return std::nullopt;
  size_t first = info.find_first_not_of(" \t");
  size_t last = info.find_last_not_of(" \t");
  out.info =
      first == std::string_view::npos ? std::string_view() : info.substr(first, last - first + 1);
  return out;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

PlainPiece PlainPieceEnd(std::string_view text, size_t pos) {
  size_t nl = text.find('\n', pos);
  size_t line_end = nl == std::string_view::npos ? text.size() : nl;
  if (line_end - pos <= kPlainPieceBytes) {
    if (nl == std::string_view::npos) return {text.size(), text.size(), false};
    return {nl, nl + 1, true};
  }
  // The byte at the cut is there: the piece is final.
  size_t cut = pos + kPlainPieceBytes;
  for (int back = 0;
       back < 3 && cut > pos + 1 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
       ++back) {
    --cut;
  }
  return {cut, cut, true};
}

PlainMarkdown::PlainMarkdown(int width, const Glyphs& glyphs, bool after_rows)
    : width_(std::max(width, 8)), glyphs_(&glyphs), any_rows_(after_rows), separate_(after_rows) {}

void PlainMarkdown::Emit(Lines rows, Lines& out) {
  if (rows.empty()) return;
  if (separate_ && any_rows_) out.emplace_back();
  separate_ = false;
  any_rows_ = true;
  for (auto& row : rows) out.push_back(std::move(row));
}

void PlainMarkdown::AddPiece(std::string_view piece, Lines& out) {
  if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
  const StyledLine bar(glyphs_->code_bar + " ", Style{Role::kBorder});
  if (fence_) {
    if (ClosesCodeFence(*fence_, piece)) {
      // A block without a line shows one empty line of code, as cmark-gfm
      // renders it.
      if (!fence_has_rows_) Emit({bar}, out);
      fence_.reset();
      separate_ = true;
      return;
    }
    size_t indent = 0;
    while (indent < piece.size() && indent < static_cast<size_t>(fence_indent_) &&
           piece[indent] == ' ') {
      ++indent;
    }
    Emit(HardWrap(StyledLine(SanitizeForTerminal(piece.substr(indent)), Style{Role::kCode}), width_,
                  bar, bar),
         out);
    fence_has_rows_ = true;
    return;
  }
  if (IsBlank(piece)) {
    separate_ = true;
    return;
  }
  if (std::optional<FenceLine> opened = OpensFence(piece)) {
    fence_ = opened->fence;
    fence_indent_ = opened->indent;
    fence_has_rows_ = false;
    separate_ = true;
    if (!opened->info.empty()) {
      StyledLine label = bar;
      label.Add(SanitizeForTerminal(opened->info), Style{Role::kDim, kAttrItalic});
      Emit({std::move(label)}, out);
    }
    return;
  }
  Emit(WrapSpans(StyledLine(SanitizeForTerminal(piece)), width_), out);
}

void PlainMarkdown::Finish(Lines& out) {
  if (fence_ && !fence_has_rows_) {
    Emit({StyledLine(glyphs_->code_bar + " ", Style{Role::kBorder})}, out);
    fence_has_rows_ = true;
  }
}

Lines RenderPlainMarkdown(std::string_view text, int width, const Glyphs& glyphs) {
  Lines out;
  PlainMarkdown plain(width, glyphs);
  for (size_t pos = 0; pos < text.size();) {
    PlainPiece piece = PlainPieceEnd(text, pos);
    plain.AddPiece(text.substr(pos, piece.end - pos), out);
    pos = piece.next;
  }
  plain.Finish(out);
  return out;
}

}  // namespace raw::tui
