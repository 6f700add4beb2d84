// WithoutFetchMarks: an excerpt without the marks builtin/web_fetch adds to
// a page's text (daemon/tools/builtin/html_text.h), so that a sentence the
// model copied from web_fetch's view of a page can be looked for in the
// page's own text (page_text.h), which has none of them. Removed:
//  - " (TARGET)" right after a link's text, TARGET a URL with a scheme
//    ("https://…", "mailto:…"): no white space, parentheses only balanced;
//  - "[image: ALT]" (page text leaves images out);
//  - a line's leading "- " of a list item and "# " to "###### " of a
//    heading (after the line's indentation, which goes too);
//  - " | " between table cells becomes one space.
// Nothing else changes: the rest must still be on the page, word for word.
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace raw::raven::web {

std::string WithoutFetchMarks(std::string_view excerpt);

}  // namespace raw::raven::web
