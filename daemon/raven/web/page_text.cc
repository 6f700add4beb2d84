#include "daemon/raven/web/page_text.h"

#include <gumbo.h>

#include <algorithm>
#include <iterator>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/html_scan.h"
#include "common/status_macros.h"
#include "daemon/raven/web/html_document.h"

namespace raw::raven::web {
namespace {

bool Dropped(GumboTag tag) {
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

// Elements whose boundaries are line boundaries (CSS display other than
// inline in the default style sheet).
bool Block(GumboTag tag) {
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

bool Hidden(const GumboElement& e) {
  if (gumbo_get_attribute(&e.attributes, "hidden") != nullptr) return true;
  if (const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "aria-hidden")) {
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(a->value), "true")) return true;
  }
  if (const GumboAttribute* a = gumbo_get_attribute(&e.attributes, "style")) {
    std::string style = absl::AsciiStrToLower(a->value);
    style.erase(std::remove_if(style.begin(), style.end(),
                               [](char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }),
                style.end());
    if (absl::StrContains(style, "display:none") || absl::StrContains(style, "visibility:hidden")) {
      return true;
    }
  }
  return false;
}

class Walker {
 public:
  explicit Walker(PageText& out) : out_(out) {}

  void Node(const GumboNode* node, bool pre) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        Text(node->v.text, pre);
        return;
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE:
        Element(node->v.element, pre);
        return;
      default:
        return;  // documents are walked from their root; comments say nothing
    }
  }

  void Finish() {
    while (!out_.text.empty() && (out_.text.back() == '\n' || out_.text.back() == ' ' ||
                                  out_.text.back() == '\t')) {
      out_.text.pop_back();
    }
    // Segments that began in the trimmed tail map nothing.
    while (!out_.segments.empty() && out_.segments.back().text_offset > out_.text.size()) {
      out_.segments.pop_back();
    }
  }

 private:
  void Element(const GumboElement& e, bool pre) {
    if (Dropped(e.tag) || Hidden(e)) return;
    if (e.tag == GUMBO_TAG_BR) {
      Break('\n');
      return;
    }
    bool block = Block(e.tag);
    bool cell = e.tag == GUMBO_TAG_TD || e.tag == GUMBO_TAG_TH;
    if (block) Break('\n');
    if (cell) Break('\t');
    bool inner_pre = pre || e.tag == GUMBO_TAG_PRE || e.tag == GUMBO_TAG_LISTING ||
                     e.tag == GUMBO_TAG_XMP || e.tag == GUMBO_TAG_TEXTAREA;
    for (unsigned i = 0; i < e.children.length; ++i) {
      Node(static_cast<const GumboNode*>(e.children.data[i]), inner_pre);
    }
    if (block) Break('\n');
    if (cell) Break('\t');
  }

  // One separator at a boundary; a '\n' wins over a pending '\t' or ' '.
  void Break(char separator) {
    if (out_.text.empty()) return;
    char& last = out_.text.back();
    if (last == '\n') return;
    if (last == ' ' || last == '\t') {
      if (separator == '\n') last = '\n';
      return;
    }
    out_.text.push_back(separator);
  }

  void Text(const GumboText& t, bool pre) {
    std::string_view s(t.text);
    if (s.empty()) return;
    out_.segments.push_back({out_.text.size(), t.start_pos.offset});
    if (pre) {
      out_.text.append(s);
      return;
    }
    for (char c : s) {
      if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
        if (!out_.text.empty() && out_.text.back() != ' ' && out_.text.back() != '\n' &&
            out_.text.back() != '\t') {
          out_.text.push_back(' ');
        }
      } else {
        out_.text.push_back(c);
      }
    }
  }

  PageText& out_;
};

}  // namespace

size_t PageText::PageOffset(size_t offset) const {
  auto it = std::upper_bound(segments.begin(), segments.end(), offset,
                             [](size_t o, const TextSegment& s) { return o < s.text_offset; });
  if (it == segments.begin()) return 0;
  return std::prev(it)->page_offset;
}

absl::StatusOr<PageText> ExtractPageText(std::string_view html) {
  if (ExceedsNestingDepth(html, kMaxDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the page nests elements more than ", kMaxDepth, " deep and was not parsed"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HtmlDocument> document, HtmlDocument::Parse(html));
  PageText out;
  Walker walker(out);
  walker.Node(document->root(), false);
  walker.Finish();
  return out;
}

}  // namespace raw::raven::web
