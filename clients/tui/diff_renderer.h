// Unified diffs (the display of builtin/edit_file results) as coloured
// lines (present::LooksLikeDiff recognizes one): additions, deletions, hunk headers and file headers each in their
// own role; long lines are hard-wrapped, never cut.
//
// Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "clients/tui/styled_line.h"

namespace raw::tui {

// Renders every line of `diff` with `indent` before it.
Lines RenderDiff(std::string_view diff, int width, const StyledLine& indent);

}  // namespace raw::tui
