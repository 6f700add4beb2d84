// RenderToolCard: a tool call as a compact card.
//
//   ✓ read_file  src/main.cc                                  done · 12 ms
//     └ 42 lines
//
// The header holds the status glyph, the name the model used, the call's key
// argument and, on the right, the status in words with the elapsed time
// (live while it runs). Collapsed, the result is summarized on one line;
// expanded, it is shown whole (a diff coloured), with the arguments. A
// result whose display is a card rather than a diff (raven_task) shows the
// card even collapsed; expanded, the card and then the whole result (the
// Raven Artifact).
//
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "clients/tui/cell.h"
#include "clients/tui/cell_renderer.h"

namespace raw::tui {

Lines RenderToolCard(const Cell& cell, const RenderContext& context);

// "waiting for approval", "running", "done", "error", "denied", ...
const char* ToolStatusWords(ToolStatus status);

}  // namespace raw::tui
