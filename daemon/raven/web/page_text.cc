#include "daemon/raven/web/page_text.h"

#include <gumbo.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/html_scan.h"
#include "common/status_macros.h"
#include "daemon/raven/web/fast_page_text.h"
#include "daemon/raven/web/html_document.h"
#include "daemon/raven/web/page_text_rules.h"

namespace raw::raven::web {
namespace {

HidingAttributes HidingAttributesOf(const GumboElement& e) {
  HidingAttributes a;
  a.hidden = gumbo_get_attribute(&e.attributes, "hidden") != nullptr;
  if (const GumboAttribute* v = gumbo_get_attribute(&e.attributes, "aria-hidden")) {
    a.has_aria_hidden = true;
    a.aria_hidden = v->value;
  }
  if (const GumboAttribute* v = gumbo_get_attribute(&e.attributes, "style")) {
    a.has_style = true;
    a.style = v->value;
  }
  return a;
}

class Walker {
 public:
  Walker(PageText& out, size_t expected) : out_(out, expected) {}

  void Node(const GumboNode* node, bool pre) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        out_.Text(node->v.text.text, node->v.text.start_pos.offset, pre);
        return;
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE:
        Element(node->v.element, pre);
        return;
      default:
        return;  // documents are walked from their root; comments say nothing
    }
  }

  void Finish() { out_.Finish(); }

 private:
  void Element(const GumboElement& e, bool pre) {
    if (DroppedElement(e.tag) || Hidden(HidingAttributesOf(e))) return;
    if (e.tag == GUMBO_TAG_BR) {
      out_.Break('\n');
      return;
    }
    bool block = BlockElement(e.tag);
    bool cell = CellElement(e.tag);
    if (block) out_.Break('\n');
    if (cell) out_.Break('\t');
    bool inner_pre = pre || PreElement(e.tag);
    for (unsigned i = 0; i < e.children.length; ++i) {
      Node(static_cast<const GumboNode*>(e.children.data[i]), inner_pre);
    }
    if (block) out_.Break('\n');
    if (cell) out_.Break('\t');
  }

  PageTextBuilder out_;
};

}  // namespace

size_t PageText::PageOffset(size_t offset) const {
  auto it = std::upper_bound(segments.begin(), segments.end(), offset,
                             [](size_t o, const TextSegment& s) { return o < s.text_offset; });
  if (it == segments.begin()) return 0;
  return std::prev(it)->page_offset;
}

absl::StatusOr<PageText> ExtractPageText(std::string_view html, const ParseBudget& budget) {
  // The fast parser gives up past kMaxDepth open elements and
  // kMaxAttributes attributes in a tag itself.
  if (std::optional<PageText> fast = FastPageText(html)) return *std::move(fast);
  if (ExceedsNestingDepth(html, kMaxDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the page nests elements more than ", kMaxDepth, " deep and was not parsed"));
  }
  if (HasTagWithMoreAttributes(html, kMaxAttributes)) {
    return absl::InvalidArgumentError(absl::StrCat("the page has a tag with more than ",
                                                   kMaxAttributes, " attributes and was not parsed"));
  }
  return GumboPageText(html, budget);
}

absl::StatusOr<PageText> GumboPageText(std::string_view html, const ParseBudget& budget) {
  ASSIGN_OR_RETURN(std::unique_ptr<HtmlDocument> document, HtmlDocument::Parse(html, budget));
  PageText out;
  Walker walker(out, html.size());
  walker.Node(document->root(), false);
  walker.Finish();
  return out;
}

}  // namespace raw::raven::web
