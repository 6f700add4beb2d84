// HtmlScan: a linear, forgiving pass over HTML that builds no tree. It
// guards the HTML parser and stands in for it when the page is hostile.
//
// libgumbo spends time proportional to the depth of the open-element stack
// on each tag, so a page of 2 MiB of unclosed <div>s takes minutes to parse
// (and its tree is deep enough to strain the stack when it is freed). It
// also compares each attribute's name with every earlier one of its tag, so
// a tag with a hundred thousand attributes takes minutes too.
// ExceedsNestingDepth estimates the depth the parser would reach (elements
// that HTML closes implicitly, like <p> and <li>, and void elements do not
// count; end tags close only what is open); HTML readers (builtin/web_fetch,
// Raven's Source verifier) strip or refuse such pages instead of parsing
// them. Both run in linear time (ExceedsNestingDepth: times the limit). Stateless; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace raw {

// True when elements in `html` nest deeper than `limit`, by the estimate
// above.
bool ExceedsNestingDepth(std::string_view html, size_t limit);

// True when a tag in `html` (outside comments and raw text) holds more than
// `limit` attributes. Counts every run of non-space bytes after the tag name
// outside quotes, so `a = b` counts three: an upper bound.
bool HasTagWithMoreAttributes(std::string_view html, size_t limit);

// The text of `html` without markup: comments, scripts and styles dropped,
// block-level tags turned into line breaks, common entities decoded,
// whitespace collapsed.
std::string StripTags(std::string_view html);

}  // namespace raw
