// RenderMarkdown: GitHub-flavoured Markdown (parsed by cmark-gfm with its
// table, strikethrough, autolink and task-list extensions) rendered into
// styled lines for a terminal width: headings, paragraphs, nested lists,
// block quotes, fenced code in the code style, tables with borders, links
// with their target, rules. Raw HTML is shown as dim text.
//
// Assistant text streams in pieces, so the input is often cut in the middle
// of a construct (an open code fence, half a table); cmark-gfm renders such
// prefixes as well as it can, and the next call renders the longer text.
//
// Pure function; thread-safe (cmark-gfm's extension registry is set up once
// under a static initializer).
#pragma once

#include <string_view>

#include "clients/tui/styled_line.h"

namespace raw::tui {

Lines RenderMarkdown(std::string_view markdown, int width, const Glyphs& glyphs);

}  // namespace raw::tui
