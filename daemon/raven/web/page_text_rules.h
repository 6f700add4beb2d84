// What the excerpt check's text walk does with each element and text run:
// the rules of ExtractPageText (page_text.h), shared by its two parsers
// (libgumbo's tree, and the streaming parser of fast_page_text.h) so both
// produce the same text and offset map from the same page.
#pragma once

#include <gumbo.h>

#include <string>
#include <string_view>

#include "daemon/raven/web/page_text.h"

namespace raw::raven::web {

// Subtrees that are not page prose (scripts, media, the head, ...).
bool DroppedElement(GumboTag tag);
// Elements whose boundaries are line boundaries (CSS display other than
// inline in the default style sheet).
bool BlockElement(GumboTag tag);
bool CellElement(GumboTag tag);  // td, th: separated by '\t'
bool PreElement(GumboTag tag);   // white space is kept inside

// The attributes that can hide an element, as the page gives them (the
// first of each name; values with character references decoded).
struct HidingAttributes {
  bool hidden = false;  // the `hidden` attribute is present
  bool has_aria_hidden = false;
  std::string_view aria_hidden;
  bool has_style = false;
  std::string_view style;
};
bool Hidden(const HidingAttributes& a);

// Builds PageText from the walk's events in document order. Runs of
// separators collapse into one; a '\n' wins over a pending '\t' or ' '.
class PageTextBuilder {
 public:
  // The text is written into out.text sized ahead to `expected` bytes (the
  // page's size bounds it: no reference is shorter than what it stands
  // for), grown when needed, and cut to size by Finish.
  PageTextBuilder(PageText& out, size_t expected) : out_(out) { out_.text.resize(expected); }

  void Break(char separator) {
    if (size_ == 0) return;
    char& last = out_.text[size_ - 1];
    if (last == '\n') return;
    if (last == ' ' || last == '\t') {
      if (separator == '\n') last = '\n';
      return;
    }
    if (size_ == out_.text.size()) Grow(1);
    out_.text[size_++] = separator;
  }
  // A text node's content; `page_offset` is where its source starts. White
  // space collapses to one ' ' unless `pre`.
  void Text(std::string_view text, size_t page_offset, bool pre);
  // Trims trailing separators and drops what they mapped.
  void Finish();

 private:
  void Grow(size_t more);

  PageText& out_;
  size_t size_ = 0;  // bytes of out_.text written
};

}  // namespace raw::raven::web
