// RenderMarkdown: GitHub-flavoured Markdown (parsed by cmark-gfm with its
// table, strikethrough and task-list extensions) rendered into styled lines
// for a terminal width: headings, paragraphs, nested lists, block quotes,
// fenced code in the code style, tables with borders, links with their
// target, rules. Raw HTML is shown as dim text. A bare URL ("www.x.org",
// "https://x.org/a") stays text: cmark-gfm 0.29's autolink extension, which
// would make it a link, takes time quadratic in some inputs ("_www."
// repeated), and the URL reads the same either way.
//
// A text longer than kMarkdownBudgetBytes is not parsed: it is rendered as
// RenderPlainMarkdown renders it (markdown_plain.h).
//
// Assistant text streams in pieces, so the input is often cut in the middle
// of a construct (an open code fence, half a table); cmark-gfm renders such
// prefixes as well as it can, and the next call renders the longer text.
//
// Pure function; thread-safe (cmark-gfm's extension registry is set up once
// under a static initializer).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "clients/tui/styled_line.h"

namespace raw::tui {

Lines RenderMarkdown(std::string_view markdown, int width, const Glyphs& glyphs);

// A fenced code block at the top level of a text (not in a list or a quote)
// that has not closed where the text ends. Offsets are into that text.
struct OpenCodeFence {
  size_t line_begin = 0;  // the opening fence line
  size_t body_begin = 0;  // the line after it
  char fence_char = '`';
  int fence_length = 3;
};

struct MarkdownRendering {
  Lines lines;
  std::optional<OpenCodeFence> open_fence;
};

// RenderMarkdown, and whether the text ends inside an open top-level fenced
// code block (never said of a text over kMarkdownBudgetBytes). REQUIRES:
// `markdown` ends with a line ending (or is empty), so that the last line
// is complete.
MarkdownRendering RenderMarkdownFindingOpenFence(std::string_view markdown, int width,
                                                 const Glyphs& glyphs);

// Whether `line` (without its line ending) closes `fence`, as CommonMark
// says: at most three columns of indentation, a run of the fence's
// character at least as long as the opening one, then only spaces or tabs.
bool ClosesCodeFence(const OpenCodeFence& fence, std::string_view line);

// The rows that lines of code add to an open top-level fenced code block
// opened by `fence_line` (with its line ending): when `text` ends inside
// such a block, after at least one line of its body, RenderMarkdown(text +
// code) is RenderMarkdown(text) followed by RenderCodeFenceLines(fence_line,
// code). `code` holds whole lines (the last may be unfinished where the
// text ends), none of which closes the fence; each line of code is rendered
// on its own, so a block streamed line by line costs its new lines only.
Lines RenderCodeFenceLines(std::string_view fence_line, std::string_view code, int width,
                           const Glyphs& glyphs);

}  // namespace raw::tui
