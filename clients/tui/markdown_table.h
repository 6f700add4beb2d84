// RenderTable: a GitHub-flavoured Markdown table (a cmark-gfm "table" node)
// as bordered rows for a width. Columns get their natural width when the
// table fits; otherwise the widest columns shrink and their cells wrap.
// The header row is bold; column alignment follows the delimiter row.
//
// Pure function; the caller renders each cell's inline content.
#pragma once

#include <functional>

#include "clients/tui/styled_line.h"

struct cmark_node;

namespace raw::tui {

using CellRenderer = std::function<StyledLine(struct cmark_node* cell)>;

Lines RenderTable(struct cmark_node* table, int width, const Glyphs& glyphs,
                  const StyledLine& first, const StyledLine& rest, const CellRenderer& cell);

}  // namespace raw::tui
