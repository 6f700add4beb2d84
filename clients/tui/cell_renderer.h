// RenderCell: one transcript cell as styled lines for a width.
//
// - user messages after a prompt marker, in the user style;
// - assistant text as Markdown;
// - reasoning dimmed, one summary line when collapsed;
// - tool calls as compact cards: status glyph, name, key argument, status
//   in words and elapsed time; the result collapsed to one line unless the
//   card is expanded; diffs coloured;
// - notices, turn endings, compaction progress and client messages.
//
// Pure function of the cell and the context; thread-safe.
#pragma once

#include <cstdint>

#include "clients/tui/cell.h"
#include "clients/tui/styled_line.h"

namespace raw::tui {

struct RenderContext {
  int width = 80;
  const Glyphs* glyphs = &Glyphs::Unicode();
  // Wall-clock time, for the elapsed time of running tools.
  int64_t now_unix_ms = 0;
};

Lines RenderCell(const Cell& cell, const RenderContext& context);


}  // namespace raw::tui
