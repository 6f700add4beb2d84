#include "daemon/tools/builtin/html_text.h"

#include <gumbo.h>

#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/html_scan.h"
#include "daemon/tools/builtin/string_view_bridge.h"

namespace raw::tools::builtin {
namespace {

// Deeper pages are not parsed (html_scan.h explains why).
constexpr size_t kMaxParseDepth = 1000;
// gumbo compares each attribute name with every earlier one of its tag.
constexpr size_t kMaxParseAttributes = 256;

bool IsSkipped(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES:
      return true;
    default:
      return false;
  }
}

// Blocks set off by a blank line.
bool IsParagraphBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_HR:
      return true;
    default:
      return false;
  }
}

// Blocks that only end the line.
bool IsLineBlock(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
      return true;
    default:
      return false;
  }
}

int HeadingLevel(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_H1: return 1;
    case GUMBO_TAG_H2: return 2;
    case GUMBO_TAG_H3: return 3;
    case GUMBO_TAG_H4: return 4;
    case GUMBO_TAG_H5: return 5;
    case GUMBO_TAG_H6: return 6;
    default: return 0;
  }
}

bool IsList(GumboTag tag) {
  return tag == GUMBO_TAG_UL || tag == GUMBO_TAG_OL || tag == GUMBO_TAG_MENU ||
         tag == GUMBO_TAG_DIR;
}

absl::string_view Attribute(const GumboNode* node, const char* name) {
  const GumboAttribute* attr = gumbo_get_attribute(&node->v.element.attributes, name);
  return attr == nullptr ? absl::string_view() : absl::string_view(attr->value);
}

const GumboVector& Children(const GumboNode* node) {
  return node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children
                                           : node->v.element.children;
}

// Builds the text: collapses whitespace and keeps line breaks tidy.
class TextBuilder {
 public:
  void Text(std::string_view s) {
    if (pre_depth_ > 0) {
      FlushSpace();
      out_.append(s);
      return;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        pending_space_ = true;
      } else if (c == '\xC2' && i + 1 < s.size() && s[i + 1] == '\xA0') {  // U+00A0
        pending_space_ = true;
        ++i;
      } else {
        FlushSpace();
        out_ += c;
      }
    }
  }

  // Text placed as is (prefixes, link targets), after any pending space.
  void Raw(std::string_view s) {
    FlushSpace();
    out_.append(s);
  }

  // Ends the current line; `lines` = 2 leaves a blank line. Never at the
  // very start.
  void Break(int lines) {
    pending_space_ = false;
    TrimLineEnd();
    if (out_.empty()) return;
    int have = 0;
    for (size_t i = out_.size(); i > 0 && out_[i - 1] == '\n' && have < lines; --i) ++have;
    for (; have < lines; ++have) out_ += '\n';
  }

  // <br>: a line break even when the line is empty.
  void NewLine() {
    pending_space_ = false;
    TrimLineEnd();
    out_ += '\n';
  }

  void EnterPre() { ++pre_depth_; }
  void ExitPre() { --pre_depth_; }
  size_t size() const { return out_.size(); }
  std::string_view Since(size_t pos) const { return std::string_view(out_).substr(pos); }

  // The text with at most one blank line in a row and no blank edges.
  std::string Finish() {
    TrimLineEnd();
    std::string result;
    int newlines = 0;
    for (char c : out_) {
      if (c == '\n') {
        if (++newlines > 2) continue;
      } else {
        newlines = 0;
      }
      result += c;
    }
    size_t first = result.find_first_not_of('\n');
    if (first == std::string::npos) return "";
    size_t last = result.find_last_not_of('\n');
    return result.substr(first, last - first + 1);
  }

 private:
  void FlushSpace() {
    if (pending_space_ && !out_.empty() && out_.back() != '\n' && out_.back() != ' ') {
      out_ += ' ';
    }
    pending_space_ = false;
  }
  void TrimLineEnd() {
    while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\t')) out_.pop_back();
  }

  std::string out_;
  bool pending_space_ = false;
  int pre_depth_ = 0;
};

std::string CollapsedText(const GumboNode* node) {
  TextBuilder text;
  std::vector<const GumboNode*> stack = {node};
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE ||
        n->type == GUMBO_NODE_CDATA) {
      text.Text(n->v.text.text);
    } else if (n->type == GUMBO_NODE_ELEMENT) {
      const GumboVector& kids = n->v.element.children;
      for (unsigned i = kids.length; i > 0; --i) {
        stack.push_back(static_cast<const GumboNode*>(kids.data[i - 1]));
      }
    }
  }
  return text.Finish();
}

const GumboNode* FindTitle(const GumboNode* root) {
  std::vector<const GumboNode*> stack = {root};
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_DOCUMENT) continue;
    if (n->type == GUMBO_NODE_ELEMENT && n->v.element.tag == GUMBO_TAG_TITLE) return n;
    if (n->type == GUMBO_NODE_ELEMENT && n->v.element.tag == GUMBO_TAG_SVG) continue;
    const GumboVector& kids = Children(n);
    for (unsigned i = kids.length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(kids.data[i - 1]));
    }
  }
  return nullptr;
}

class Renderer {
 public:
  explicit Renderer(const HtmlTextOptions& options) : options_(options) {}

  std::string Render(const GumboNode* root) {
    struct Frame {
      const GumboNode* node;
      unsigned next_child = 0;
      size_t text_start = 0;  // where the element's text begins
    };
    // An explicit stack: deeply nested markup cannot overflow the call stack.
    std::vector<Frame> stack;
    stack.push_back({root});
    while (!stack.empty()) {
      Frame& frame = stack.back();
      const GumboNode* node = frame.node;
      const GumboVector& kids = Children(node);
      if (frame.next_child < kids.length) {
        const auto* child = static_cast<const GumboNode*>(kids.data[frame.next_child++]);
        if (child->type == GUMBO_NODE_TEXT || child->type == GUMBO_NODE_WHITESPACE ||
            child->type == GUMBO_NODE_CDATA) {
          text_.Text(child->v.text.text);
        } else if (child->type == GUMBO_NODE_ELEMENT && Enter(child)) {
          stack.push_back({child, 0, text_.size()});
        }
        continue;
      }
      if (node->type == GUMBO_NODE_ELEMENT) Exit(node, frame.text_start);
      stack.pop_back();
    }
    return text_.Finish();
  }

 private:
  // Opens `node`; false to skip its subtree.
  bool Enter(const GumboNode* node) {
    const GumboTag tag = node->v.element.tag;
    if (IsSkipped(tag)) return false;
    if (tag == GUMBO_TAG_BR) {
      text_.NewLine();
      return false;
    }
    if (tag == GUMBO_TAG_HR) {
      text_.Break(2);
      text_.Raw("---");
      text_.Break(2);
      return false;
    }
    if (tag == GUMBO_TAG_IMG) {
      absl::string_view alt = Attribute(node, "alt");
      if (!absl::StripAsciiWhitespace(alt).empty()) {
        text_.Text(absl::StrCat(" [image: ", alt, "] "));
      }
      return false;
    }
    if (IsList(tag)) {
      text_.Break(list_depth_ == 0 ? 2 : 1);
      ++list_depth_;
      return true;
    }
    if (IsParagraphBlock(tag)) {
      text_.Break(2);
    } else if (IsLineBlock(tag)) {
      text_.Break(1);
    }
    if (int level = HeadingLevel(tag); level > 0) {
      text_.Raw(absl::StrCat(std::string(static_cast<size_t>(level), '#'), " "));
    } else if (tag == GUMBO_TAG_LI) {
      int indent = list_depth_ > 0 ? list_depth_ - 1 : 0;
      text_.Raw(absl::StrCat(std::string(static_cast<size_t>(2 * indent), ' '), "- "));
    } else if (tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_TEXTAREA || tag == GUMBO_TAG_LISTING ||
               tag == GUMBO_TAG_XMP || tag == GUMBO_TAG_PLAINTEXT) {
      text_.EnterPre();
    } else if (tag == GUMBO_TAG_TR) {
      cells_.push_back(0);
    } else if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) {
      if (!cells_.empty() && cells_.back()++ > 0) text_.Raw(" | ");
    }
    return true;
  }

  void Exit(const GumboNode* node, size_t text_start) {
    const GumboTag tag = node->v.element.tag;
    if (tag == GUMBO_TAG_A) {
      AppendLinkTarget(node, text_start);
    } else if (tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_TEXTAREA || tag == GUMBO_TAG_LISTING ||
               tag == GUMBO_TAG_XMP || tag == GUMBO_TAG_PLAINTEXT) {
      text_.ExitPre();
    } else if (tag == GUMBO_TAG_TR) {
      if (!cells_.empty()) cells_.pop_back();
    }
    if (IsList(tag)) {
      --list_depth_;
      text_.Break(list_depth_ == 0 ? 2 : 1);
    } else if (IsParagraphBlock(tag)) {
      text_.Break(2);
    } else if (IsLineBlock(tag)) {
      text_.Break(1);
    }
  }

  void AppendLinkTarget(const GumboNode* node, size_t text_start) {
    absl::string_view href = absl::StripAsciiWhitespace(Attribute(node, "href"));
    if (href.empty() || href[0] == '#' || absl::StartsWithIgnoreCase(href, "javascript:")) return;
    absl::string_view link_text = absl::StripAsciiWhitespace(ToAbsl(text_.Since(text_start)));
    if (link_text.empty()) return;
    std::string target =
        options_.link_target ? options_.link_target(ToStd(href)) : std::string(href);
    if (target.empty() || target == link_text) return;
    text_.Raw(absl::StrCat(" (", target, ")"));
  }

  const HtmlTextOptions& options_;
  TextBuilder text_;
  int list_depth_ = 0;
  std::vector<int> cells_;  // cells seen in each open table row
};

}  // namespace

std::string HtmlToText(std::string_view html, const HtmlTextOptions& options) {
  if (ExceedsNestingDepth(html, kMaxParseDepth)) {
    std::string text = StripTags(html);
    return absl::StrCat("[the page nests elements more than ", kMaxParseDepth,
                        " deep, so it was not parsed; this is its text with the markup "
                        "stripped]", text.empty() ? "" : "\n\n", text);
  }
  if (HasTagWithMoreAttributes(html, kMaxParseAttributes)) {
    std::string text = StripTags(html);
    return absl::StrCat("[the page has a tag with more than ", kMaxParseAttributes,
                        " attributes, so it was not parsed; this is its text with the markup "
                        "stripped]", text.empty() ? "" : "\n\n", text);
  }
  absl::StatusOr<std::unique_ptr<raven::web::HtmlDocument>> parsed =
      raven::web::HtmlDocument::Parse(html, options.budget);
  if (!parsed.ok()) {
    std::string text = StripTags(html);
    return absl::StrCat("[the page was not parsed (", parsed.status().message(),
                        "); this is its text with the markup stripped]", text.empty() ? "" : "\n\n",
                        text);
  }
  const GumboNode* document = (*parsed)->document();
  std::string title;
  if (const GumboNode* title_node = FindTitle(document)) title = CollapsedText(title_node);
  std::string body = Renderer(options).Render(document);
  if (title.empty()) return body;
  if (body.empty()) return absl::StrCat("Title: ", title);
  return absl::StrCat("Title: ", title, "\n\n", body);
}

}  // namespace raw::tools::builtin
