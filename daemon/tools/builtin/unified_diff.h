// UnifiedDiff: the line-based difference of two texts in unified format
// (`diff -u`), as builtin/edit_file shows it to clients.
//
//   --- src/a.cc
//   +++ src/a.cc
//   @@ -10,7 +10,7 @@
//    context
//   -old line
//   +new line
//
// The common head and tail are stripped first, then the middle is compared
// with Myers' O(ND) algorithm. The work is bounded: when the middle is large
// or differs in too many places, it is reported as one replaced block
// (every old line removed, every new line added), which is still a correct
// diff. A text whose last line lacks a newline gets the usual
// "\ No newline at end of file" marker. Stateless; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace raw::tools::builtin {

struct DiffOptions {
  int context_lines = 3;
  // Beyond this many edits in the middle, or this many lines to compare in
  // it, the middle becomes one replaced block.
  size_t max_edits = 4000;
  size_t max_compared_lines = 200000;
};

// The diff of `old_text` and `new_text` with `old_label` and `new_label` on
// the ---/+++ lines; "" when the texts are equal.
std::string UnifiedDiff(std::string_view old_text, std::string_view new_text,
                        std::string_view old_label, std::string_view new_label,
                        const DiffOptions& options = {});

}  // namespace raw::tools::builtin
