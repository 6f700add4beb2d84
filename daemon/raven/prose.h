// Prose Layout: the canonical line shape every Artifact is stored and
// hashed in — Markdown-aware, one sentence per line.
//
// LayoutProse is pure, total (any bytes in, valid UTF-8 out) and
// idempotent: LayoutProse(LayoutProse(x)) == LayoutProse(x). Completion
// compares hashes of laid-out bytes, so a caller may resend either its own
// text or the bytes Raven returned. The steps below make one pass; a pass
// can expose structure the next one reads differently, so passes repeat
// until the text no longer changes (at most 16; tests/fuzz/
// raven_prose_fuzz checks the result is a fixed point). The steps:
//   - ill-formed UTF-8 becomes U+FFFD; the text is put in Unicode NFC;
//     CRLF and lone CR become LF; the whole text is trimmed;
//   - frontmatter (a first line of 3+ dashes, up to the next such line),
//     fenced code (``` or ~~~), $$ math blocks, headings, thematic breaks,
//     table rows, HTML block lines, link reference definitions, setext
//     underlines, hard-break lines (ending in 2+ spaces or a backslash) and
//     blank lines are copied verbatim, and so is a line that would read as
//     such structure once its leading tab or no-break space were dropped;
//   - a blockquote line keeps its '>' prefix on every line it becomes; a
//     list item's later sentences get a continuation prefix of its width;
//   - other lines form paragraphs: joined with one space (none between two
//     wide CJK characters) and split into sentences conservatively
//     (abbreviations, initials, inline code, brackets and a lower-case next
//     word keep text together; a closing quote and one [^note] or [@id]
//     marker stay with their sentence).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace raw::raven {

std::string LayoutProse(std::string_view text);

// The sentences of one paragraph of prose (exposed for tests).
std::vector<std::string> SplitSentences(std::string_view text);
// The same, adding to `steps` the bytes read back from each '.' to find the
// word it ends (linear in the text; tests bound it).
std::vector<std::string> SplitSentences(std::string_view text, size_t& steps);

}  // namespace raw::raven
