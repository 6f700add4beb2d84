#include "clients/tui/markdown_table.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

struct Row {
  std::vector<StyledLine> cells;
  bool header = false;
};

StyledLine Pad(const StyledLine& line, int width, char align) {
  int room = std::max(0, width - line.Width());
  int left = align == 'r' ? room : align == 'c' ? room / 2 : 0;
  StyledLine out(std::string(static_cast<size_t>(left), ' '));
  out.Append(line);
  out.Add(std::string(static_cast<size_t>(room - left), ' '));
  return out;
}

}  // namespace

std::vector<int> FitColumnWidths(const std::vector<int>& natural, int room, int* steps) {
  constexpr int kMinWidth = 3;
  if (steps != nullptr) *steps = 0;
  std::vector<int> widths = natural;
  long total = std::accumulate(natural.begin(), natural.end(), 0L);
  if (total <= room) return widths;
  // Widest first: capping the k widest at `limit` leaves `rest` (the sum
  // of the others) plus k * limit.
  std::vector<int> sorted = natural;
  std::sort(sorted.begin(), sorted.end(), std::greater<int>());
  long rest = total;
  int limit = kMinWidth;
  size_t capped = 0;
  for (size_t k = 1; k <= sorted.size(); ++k) {
    if (steps != nullptr) ++*steps;
    rest -= sorted[k - 1];
    // The k widest at one limit, no wider than the k-th, no narrower than
    // the next.
    long fit = (room - rest) / static_cast<long>(k);
    int next = k < sorted.size() ? sorted[k] : 0;
    if (fit >= next) {
      limit = static_cast<int>(std::min<long>(fit, sorted[k - 1]));
      capped = k;
      break;
    }
  }
  if (capped == 0 || limit < kMinWidth) {
    // Even at the minimum the table is too wide: it stays wider than the room.
    for (int& w : widths) w = std::min(w, kMinWidth);
    return widths;
  }
  // The columns over the limit take it; the columns left over go, one
  // each, to the last of them (as shrinking the first widest column one
  // column at a time would leave them).
  long spare = room - rest - static_cast<long>(capped) * limit;
  for (size_t c = widths.size(); c-- > 0;) {
    if (widths[c] <= limit) continue;
    widths[c] = limit + (spare > 0 ? 1 : 0);
    if (spare > 0) --spare;
  }
  return widths;
}

Lines RenderTable(cmark_node* table, int width, const Glyphs& glyphs, const StyledLine& first,
                  const StyledLine& rest, const CellRenderer& render_cell) {
  const size_t columns = std::max<size_t>(1, cmark_gfm_extensions_get_table_columns(table));
  const uint8_t* aligns = cmark_gfm_extensions_get_table_alignments(table);
  std::vector<Row> rows;
  for (cmark_node* row = cmark_node_first_child(table); row != nullptr;
       row = cmark_node_next(row)) {
    Row r;
    r.header = cmark_gfm_extensions_get_table_row_is_header(row) != 0;
    for (cmark_node* cell = cmark_node_first_child(row); cell != nullptr;
         cell = cmark_node_next(cell)) {
      StyledLine content = render_cell(cell);
      if (r.header) {
        StyledLine bold;
        for (const Span& s : content.spans) bold.Add(s.text, s.style.With(kAttrBold));
        content = bold;
      }
      r.cells.push_back(std::move(content));
    }
    r.cells.resize(columns);
    rows.push_back(std::move(r));
  }

  // Natural widths, then the widest shrink until the table fits:
  // "│ a │ b │" takes 3 columns per cell plus one.
  std::vector<int> natural(columns, 1);
  for (const Row& r : rows) {
    for (size_t c = 0; c < columns; ++c) natural[c] = std::max(natural[c], r.cells[c].Width());
  }
  const int available = std::max(static_cast<int>(columns) * 4 + 1, width - first.Width());
  const std::vector<int> widths =
      FitColumnWidths(natural, available - 3 * static_cast<int>(columns) - 1);

  Style border{Role::kBorder};
  auto rule = [&](const StyledLine& prefix) {
    StyledLine line = prefix;
    std::string text = glyphs.table_left;
    for (size_t c = 0; c < columns; ++c) {
      for (int i = 0; i < widths[c] + 2; ++i) text += glyphs.table_h;
      text += c + 1 < columns ? glyphs.table_cross : glyphs.table_right;
    }
    line.Add(text, border);
    return line;
  };

  Lines out;
  bool first_line = true;
  for (const Row& r : rows) {
    std::vector<Lines> wrapped(columns);
    size_t height = 1;
    for (size_t c = 0; c < columns; ++c) {
      wrapped[c] = WrapSpans(r.cells[c], widths[c]);
      height = std::max(height, wrapped[c].size());
    }
    for (size_t h = 0; h < height; ++h) {
      StyledLine line = first_line ? first : rest;
      first_line = false;
      line.Add(glyphs.table_v, border);
      for (size_t c = 0; c < columns; ++c) {
        char align = aligns != nullptr ? static_cast<char>(aligns[c]) : 'l';
        StyledLine cell = h < wrapped[c].size() ? wrapped[c][h] : StyledLine();
        line.Add(" ").Append(Pad(cell, widths[c], align)).Add(" ");
        line.Add(glyphs.table_v, border);
      }
      out.push_back(std::move(line));
    }
    if (r.header) out.push_back(rule(rest));
  }
  return out;
}

}  // namespace raw::tui
