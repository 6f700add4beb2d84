// The rendered text of an HTML page for the excerpt check (not for reading:
// builtin/web_fetch has its own view). Parsing is libgumbo's HTML5
// algorithm, which also decodes every named character reference, the legacy
// semicolonless ones ("&amp", "&copy") included; most pages are read by a
// streaming parser that gives the identical result (fast_page_text.h).
//
// A WHATWG innerText-style walk over the whole document body:
// - script, style, template, noscript, head, svg, math, iframe, object,
//   embed, canvas, audio and video subtrees are dropped, and so are elements
//   with the `hidden` attribute, aria-hidden="true", or an inline style
//   containing display:none or visibility:hidden;
// - inline elements (a, b, em, span, ...) add nothing, so "<b>re</b>sponsible"
//   stays "responsible" and "50<sup>th</sup>" stays "50th";
// - a block boundary (p, div, li, headings, table rows, ...) and <br> emit
//   exactly one '\n'; table cells are separated by '\t'; runs of separators
//   collapse into one;
// - white space outside <pre> collapses to one ' ' (the normalizer folds
//   white space anyway; <pre> keeps its own);
// - <img alt> contributes nothing (an alt text is not page prose).
//
// `segments` maps the text back to the page: each entry says that text from
// `text_offset` on came from the node whose source starts at `page_offset`
// in the (UTF-8) HTML. Pages whose elements nest deeper than kMaxDepth, or
// with a tag of more than kMaxAttributes attributes, are not parsed
// (libgumbo is quadratic in both): the result is an error. A page left to
// gumbo is parsed within `budget` (html_document.h); past it the result is
// its error.
// Stateless; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/raven/web/html_document.h"

namespace raw::raven::web {

struct TextSegment {
  size_t text_offset = 0;
  size_t page_offset = 0;
};

struct PageText {
  std::string text;
  std::vector<TextSegment> segments;
  // The page offset of text byte `offset` (the start of its node).
  size_t PageOffset(size_t offset) const;
};

inline constexpr size_t kMaxDepth = 1000;
inline constexpr size_t kMaxAttributes = 256;

absl::StatusOr<PageText> ExtractPageText(std::string_view html, const ParseBudget& budget = {});

}  // namespace raw::raven::web
