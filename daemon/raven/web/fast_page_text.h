// The two parsers behind ExtractPageText (page_text.h).
//
// GumboPageText is the reference: libgumbo's HTML5 parse, then a walk over
// the tree. Its parse is most of the time of a Source check (about 170 ms
// for a 2 MB page on the reference machine), so ExtractPageText first tries
// FastPageText: one pass over the bytes with an HTML5 tokenizer and the
// tree-construction rules of libgumbo for the subset that real article
// pages use (the head, block and inline elements, optional end tags, lists,
// tables built from their own tags, formatting elements closed in order,
// forms, comments, scripts and styles, SVG and MathML, <select> outside
// tables, character references of the common named set and every numeric
// one). Within that subset it emits the same events in the same order as
// the walk over gumbo's tree, so the result is identical, offset map
// included. Outside it (foster parenting, formatting elements closed across
// a block, HTML inside SVG or MathML, templates, frames, rare named
// references, bytes gumbo would replace, ...) it gives up and returns
// nullopt, and the page goes to gumbo. The fuzz target raven_page_fuzz
// checks the two against each other on every input the fast parser accepts.
// The parser itself is in fast_parser.h.
//
// Both are stateless; safe from any thread.
#pragma once

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/raven/web/page_text.h"

namespace raw::raven::web {

std::optional<PageText> FastPageText(std::string_view html);
absl::StatusOr<PageText> GumboPageText(std::string_view html, const ParseBudget& budget = {});

}  // namespace raw::raven::web
