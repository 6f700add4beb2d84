#include "daemon/raven/web/page_text_rules.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace raw::raven::web {
namespace {

// absl::ascii_isspace: ' ', \t, \n, \v, \f, \r.
bool AsciiSpace(char c) {
  return c == ' ' || static_cast<unsigned char>(c - '\t') <= '\r' - '\t';
}

}  // namespace

bool DroppedElement(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_HEAD: case GUMBO_TAG_SVG: case GUMBO_TAG_MATH:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_OBJECT: case GUMBO_TAG_EMBED: case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_AUDIO: case GUMBO_TAG_VIDEO: case GUMBO_TAG_SELECT: case GUMBO_TAG_DATALIST:
      return true;
    default:
      return false;
  }
}

bool BlockElement(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY: case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER: case GUMBO_TAG_DD: case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR: case GUMBO_TAG_DIV: case GUMBO_TAG_DL: case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET: case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER: case GUMBO_TAG_FORM: case GUMBO_TAG_H1: case GUMBO_TAG_H2:
    case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER: case GUMBO_TAG_HGROUP: case GUMBO_TAG_HR: case GUMBO_TAG_HTML:
    case GUMBO_TAG_LEGEND: case GUMBO_TAG_LI: case GUMBO_TAG_LISTING: case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU: case GUMBO_TAG_NAV: case GUMBO_TAG_OL: case GUMBO_TAG_OPTGROUP:
    case GUMBO_TAG_OPTION: case GUMBO_TAG_P: case GUMBO_TAG_PLAINTEXT: case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION: case GUMBO_TAG_SUMMARY: case GUMBO_TAG_TABLE: case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TFOOT: case GUMBO_TAG_THEAD: case GUMBO_TAG_TR: case GUMBO_TAG_UL:
    case GUMBO_TAG_XMP:
      return true;
    default:
      return false;
  }
}

bool CellElement(GumboTag tag) { return tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH; }

bool PreElement(GumboTag tag) {
  return tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_LISTING || tag == GUMBO_TAG_XMP ||
         tag == GUMBO_TAG_TEXTAREA;
}

bool Hidden(const HidingAttributes& a) {
  if (a.hidden) return true;
  if (a.has_aria_hidden &&
      absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(absl::string_view(a.aria_hidden.data(),
                                                                           a.aria_hidden.size())),
                             "true")) {
    return true;
  }
  if (a.has_style) {
    std::string style = absl::AsciiStrToLower(absl::string_view(a.style.data(), a.style.size()));
    style.erase(std::remove_if(style.begin(), style.end(),
                               [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }),
                style.end());
    if (absl::StrContains(style, "display:none") || absl::StrContains(style, "visibility:hidden")) {
      return true;
    }
  }
  return false;
}

void PageTextBuilder::Grow(size_t more) {
  out_.text.resize(std::max(out_.text.size() * 2, size_ + more));
}

void PageTextBuilder::Text(std::string_view s, size_t page_offset, bool pre) {
  if (s.empty()) return;
  // Only the last segment at a text offset maps anything (PageOffset takes
  // the last one at or before an offset), so a node that added nothing is
  // replaced by the next.
  if (!out_.segments.empty() && out_.segments.back().text_offset == size_) {
    out_.segments.back().page_offset = page_offset;
  } else {
    out_.segments.push_back({size_, page_offset});
  }
  if (size_ + s.size() > out_.text.size()) Grow(s.size());
  char* const base = out_.text.data();
  if (pre) {
    std::memcpy(base + size_, s.data(), s.size());
    size_ += s.size();
    return;
  }
  // White space collapses, so the text only shrinks.
  char* dst = base + size_;
  char last = size_ == 0 ? '\n' : base[size_ - 1];  // nothing before: no leading space
  for (const char c : s) {
    if (AsciiSpace(c)) {
      if (last != ' ' && last != '\n' && last != '\t') {
        *dst++ = ' ';
        last = ' ';
      }
    } else {
      *dst++ = c;
      last = c;
    }
  }
  size_ = static_cast<size_t>(dst - base);
}

void PageTextBuilder::Finish() {
  const std::string& text = out_.text;
  while (size_ > 0 && (text[size_ - 1] == '\n' || text[size_ - 1] == ' ' || text[size_ - 1] == '\t')) {
    --size_;
  }
  out_.text.resize(size_);
  // Segments that began in the trimmed tail map nothing.
  while (!out_.segments.empty() && out_.segments.back().text_offset > size_) {
    out_.segments.pop_back();
  }
  if (size_ == 0) out_.segments.clear();
}

}  // namespace raw::raven::web
