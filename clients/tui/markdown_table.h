// RenderTable: a GitHub-flavoured Markdown table (a cmark-gfm "table" node)
// as bordered rows for a width. Columns get their natural width when the
// table fits; otherwise the widest columns shrink and their cells wrap.
// The header row is bold; column alignment follows the delimiter row.
//
// Pure function; the caller renders each cell's inline content.
#pragma once

#include <functional>
#include <vector>

#include "clients/tui/styled_line.h"

struct cmark_node;

namespace raw::tui {

using CellRenderer = std::function<StyledLine(struct cmark_node* cell)>;

// The widths of columns whose content is `natural` columns wide, so that
// they take at most `room` columns together: unchanged when they fit, else
// the widest capped at one limit, the largest that fits (the last of them
// one column wider where that still fits), none below 3. Computed in one
// pass over the columns sorted by width: a table of thousands of columns
// costs as little as a narrow one. `*steps`, when given, receives how many
// columns the pass looked at (what tests check).
std::vector<int> FitColumnWidths(const std::vector<int>& natural, int room, int* steps = nullptr);

Lines RenderTable(struct cmark_node* table, int width, const Glyphs& glyphs,
                  const StyledLine& first, const StyledLine& rest, const CellRenderer& cell);

}  // namespace raw::tui
