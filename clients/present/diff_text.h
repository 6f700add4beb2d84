// Unified diffs (the display of builtin/edit_file results): recognizing one
// and counting its changed lines. Drawing them is each surface's own.
//
// Pure functions; thread-safe.
#pragma once

#include <string_view>

namespace raw::present {

// True when `text` looks like a unified diff (a "@@ " hunk header after
// "--- "/"+++ " file headers, or starting with "diff ").
bool LooksLikeDiff(std::string_view text);

struct DiffCounts {
  int added = 0;
  int removed = 0;
};

// Added and removed lines, file headers ("+++ ", "--- ") not counted.
DiffCounts CountDiff(std::string_view diff);

}  // namespace raw::present
