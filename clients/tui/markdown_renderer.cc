#include "clients/tui/markdown_renderer.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "clients/tui/markdown_plain.h"
#include "clients/tui/markdown_table.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

struct ParserDeleter {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct NodeDeleter {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};

bool IsType(cmark_node* node, const char* name) {
  const char* type = cmark_node_get_type_string(node);
  return type != nullptr && std::strcmp(type, name) == 0;
}

std::string Literal(cmark_node* node) {
  const char* text = cmark_node_get_literal(node);
  return text == nullptr ? std::string() : SanitizeForTerminal(text);
}

// How deep containers (block quotes, list items) and inline spans (emphasis,
// links) are rendered with their structure. cmark-gfm builds a tree as deep
// as its input nests ("> " repeated 100 000 times is 100 000 levels), and the
// renderer recurses once per level, so a hostile answer would otherwise
// overflow the stack; deeper content is shown as its plain text.
constexpr int kMaxNesting = 32;

bool EndsBlock(cmark_node_type type) {
  return type == CMARK_NODE_PARAGRAPH || type == CMARK_NODE_HEADING ||
         type == CMARK_NODE_CODE_BLOCK || type == CMARK_NODE_HTML_BLOCK ||
         type == CMARK_NODE_THEMATIC_BREAK;
}

// The text of `node`'s subtree in document order, without its structure: one
// line per leaf block, soft breaks as spaces. Iterative (cmark_iter), so the
// subtree's depth does not matter.
StyledLine FlatText(cmark_node* node, Style style) {
  StyledLine out;
  bool pending_break = false;
  auto add = [&](std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (text.empty()) return;
    if (pending_break && out.Width() > 0) out.Add("\n", style);
    pending_break = false;
    out.Add(text, style);
  };
  cmark_iter* iter = cmark_iter_new(node);
  for (cmark_event_type event = cmark_iter_next(iter); event != CMARK_EVENT_DONE;
       event = cmark_iter_next(iter)) {
    cmark_node* current = cmark_iter_get_node(iter);
    cmark_node_type type = cmark_node_get_type(current);
    if (event == CMARK_EVENT_ENTER) {
      switch (type) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE:
        case CMARK_NODE_HTML_INLINE:
        case CMARK_NODE_CODE_BLOCK:
        case CMARK_NODE_HTML_BLOCK:
          add(Literal(current));
          break;
        case CMARK_NODE_SOFTBREAK:
          if (!pending_break) out.Add(" ", style);
          break;
        case CMARK_NODE_LINEBREAK:
          if (!pending_break) out.Add("\n", style);
          break;
        default:
          break;
      }
    }
    // Leaf blocks have no exit event.
    bool leaf = type == CMARK_NODE_CODE_BLOCK || type == CMARK_NODE_HTML_BLOCK ||
                type == CMARK_NODE_THEMATIC_BREAK;
    if (EndsBlock(type) && (event == CMARK_EVENT_EXIT || leaf)) pending_break = true;
  }
  cmark_iter_free(iter);
  return out;
}

class Renderer {
 public:
  Renderer(int width, const Glyphs& glyphs) : width_(std::max(width, 8)), glyphs_(glyphs) {}

  Lines Render(cmark_node* document) {
    Blocks(document, StyledLine(), StyledLine(), /*tight=*/false);
    return std::move(out_);
  }

 private:
  void Blocks(cmark_node* parent, const StyledLine& first, const StyledLine& rest, bool tight) {
    ++nesting_;
    bool first_block = true;
    for (cmark_node* child = cmark_node_first_child(parent); child != nullptr;
         child = cmark_node_next(child)) {
      if (!first_block && !tight) out_.push_back(rest);
      Block(child, first_block ? first : rest, rest);
      first_block = false;
    }
    // An empty list item (streaming text may end at its marker).
    if (first_block && !(first == rest)) out_.push_back(first);
    --nesting_;
  }

  // Whether a container at the current level is too deep (or its prefix too
  // wide) to get one more level of structure.
  bool TooDeep(const StyledLine& rest) const {
    return nesting_ >= kMaxNesting || rest.Width() > width_ / 2;
  }

  void Flat(cmark_node* node, const StyledLine& first, const StyledLine& rest) {
    Emit(WrapSpans(FlatText(node, Style{}), width_, first, rest));
  }

  void Block(cmark_node* node, const StyledLine& first, const StyledLine& rest) {
    Style dim{Role::kDim};
    cmark_node_type type = cmark_node_get_type(node);
    if (!EndsBlock(type) && TooDeep(rest)) {
      Flat(node, first, rest);
      return;
    }
    switch (type) {
      case CMARK_NODE_PARAGRAPH:
        Emit(WrapSpans(Inlines(node, Style{}), width_, first, rest));
        return;
      case CMARK_NODE_HEADING: {
        Style style{Role::kAccent, kAttrBold};
        if (cmark_node_get_heading_level(node) == 1) style = style.With(kAttrUnderline);
        Emit(WrapSpans(Inlines(node, style), width_, first, rest));
        return;
      }
      case CMARK_NODE_BLOCK_QUOTE: {
        StyledLine bar(glyphs_.quote_bar + " ", Style{Role::kQuote});
        StyledLine qfirst = first;
        qfirst.Append(bar);
        StyledLine qrest = rest;
        qrest.Append(bar);
        Blocks(node, qfirst, qrest, /*tight=*/false);
        return;
      }
      case CMARK_NODE_LIST:
        List(node, first, rest);
        return;
      case CMARK_NODE_CODE_BLOCK:
        CodeBlock(node, first, rest);
        return;
      case CMARK_NODE_THEMATIC_BREAK: {
        StyledLine line = first;
        int room = std::max(3, width_ - first.Width());
        std::string rule;
        for (int i = 0; i < room; ++i) rule += glyphs_.rule;
        line.Add(rule, Style{Role::kBorder});
        out_.push_back(std::move(line));
        return;
      }
      case CMARK_NODE_HTML_BLOCK: {
        std::string text = Literal(node);
        while (!text.empty() && text.back() == '\n') text.pop_back();
        Emit(HardWrap(StyledLine(text, dim), width_, first, rest));
        return;
      }
      default:
        break;
    }
    if (IsType(node, "table")) {
      Emit(RenderTable(node, width_, glyphs_, first, rest,
                       [this](cmark_node* cell) { return Inlines(cell, Style{}); }));
      return;
    }
    Blocks(node, first, rest, /*tight=*/false);
  }

  void List(cmark_node* list, const StyledLine& first, const StyledLine& rest) {
    bool ordered = cmark_node_get_list_type(list) == CMARK_ORDERED_LIST;
    bool tight = cmark_node_get_list_tight(list) != 0;
    int number = cmark_node_get_list_start(list);
    ++depth_;
    const std::string& bullet = depth_ % 2 == 1 ? glyphs_.bullet : glyphs_.bullet2;
    bool first_item = true;
    for (cmark_node* item = cmark_node_first_child(list); item != nullptr;
         item = cmark_node_next(item)) {
      if (!first_item && !tight) out_.push_back(rest);
      std::string marker = ordered ? std::to_string(number++) + "." : bullet;
      Style marker_style{ordered ? Role::kDefault : Role::kAccent};
      StyledLine ifirst = first_item ? first : rest;
      ifirst.Add(marker + " ", marker_style);
      if (IsType(item, "tasklist")) {
        ifirst.Add(cmark_gfm_extensions_get_tasklist_item_checked(item) ? "[x] " : "[ ] ",
                   Style{Role::kAccent});
      }
      StyledLine irest = rest;
      irest.Add(std::string(static_cast<size_t>(DisplayWidth(marker) + 1), ' '));
      Blocks(item, ifirst, irest, tight);
      first_item = false;
    }
    --depth_;
  }

  void CodeBlock(cmark_node* node, const StyledLine& first, const StyledLine& rest) {
    const char* info = cmark_node_get_fence_info(node);
    Style bar_style{Role::kBorder};
    StyledLine cfirst = first;
    StyledLine crest = rest;
    crest.Add(glyphs_.code_bar + " ", bar_style);
    if (info != nullptr && *info != '\0') {
      StyledLine label = first;
      label.Add(glyphs_.code_bar + " ", bar_style)
          .Add(SanitizeForTerminal(info), Style{Role::kDim, kAttrItalic});
      out_.push_back(std::move(label));
      cfirst = crest;
    } else {
      cfirst.Add(glyphs_.code_bar + " ", bar_style);
    }
    CodeLines(node, cfirst, crest);
  }

 public:
  // The lines of code of a top-level code block, without its label: at the
  // top level the first line has the same prefix as the others.
  Lines TopLevelCodeLines(cmark_node* node) {
    StyledLine bar(glyphs_.code_bar + " ", Style{Role::kBorder});
    CodeLines(node, bar, bar);
    return std::move(out_);
  }

 private:
  void CodeLines(cmark_node* node, const StyledLine& cfirst, const StyledLine& crest) {
    std::string code = Literal(node);
    if (!code.empty() && code.back() == '\n') code.pop_back();
    size_t start = 0;
    bool first_line = true;
    for (;;) {
      size_t nl = code.find('\n', start);
      std::string line = code.substr(start, nl == std::string::npos ? nl : nl - start);
      Emit(HardWrap(StyledLine(line, Style{Role::kCode}), width_, first_line ? cfirst : crest,
                    crest));
      first_line = false;
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }

  StyledLine Inlines(cmark_node* parent, Style style) {
    StyledLine line;
    AppendInlines(parent, style, line, 0);
    return line;
  }

  // `depth` counts the inline spans `parent` is nested in.
  void AppendInlines(cmark_node* parent, Style style, StyledLine& line, int depth) {
    if (depth >= kMaxNesting) {
      line.Append(FlatText(parent, style));
      return;
    }
    for (cmark_node* node = cmark_node_first_child(parent); node != nullptr;
         node = cmark_node_next(node)) {
      switch (cmark_node_get_type(node)) {
        case CMARK_NODE_TEXT:
          line.Add(Literal(node), style);
          break;
        case CMARK_NODE_SOFTBREAK:
          line.Add(" ", style);
          break;
        case CMARK_NODE_LINEBREAK:
          line.Add("\n", style);
          break;
        case CMARK_NODE_CODE:
          line.Add(Literal(node), style.As(Role::kCode));
          break;
        case CMARK_NODE_HTML_INLINE:
          line.Add(Literal(node), style.As(Role::kDim));
          break;
        case CMARK_NODE_EMPH:
          AppendInlines(node, style.With(kAttrItalic), line, depth + 1);
          break;
        case CMARK_NODE_STRONG:
          AppendInlines(node, style.With(kAttrBold), line, depth + 1);
          break;
        case CMARK_NODE_LINK:
        case CMARK_NODE_IMAGE: {
          bool image = cmark_node_get_type(node) == CMARK_NODE_IMAGE;
          std::string url = cmark_node_get_url(node) ? SanitizeForTerminal(cmark_node_get_url(node)) : "";
          StyledLine text;
          AppendInlines(node, style.As(Role::kLink).With(kAttrUnderline), text, depth + 1);
          if (image) line.Add("[image: ", style.As(Role::kDim));
          line.Append(text);
          if (image) line.Add("]", style.As(Role::kDim));
          if (!url.empty() && url != text.PlainText() && "mailto:" + text.PlainText() != url) {
            line.Add(" (" + url + ")", Style{Role::kDim});
          }
          break;
        }
        default:
          if (IsType(node, "strikethrough")) {
            AppendInlines(node, style.With(kAttrStrike), line, depth + 1);
          } else {
            AppendInlines(node, style, line, depth + 1);
          }
          break;
      }
    }
  }

  void Emit(Lines lines) {
    for (auto& line : lines) out_.push_back(std::move(line));
  }

  int width_;
  const Glyphs& glyphs_;
  int depth_ = 0;    // lists, for the bullet glyph
  int nesting_ = 0;  // containers (Blocks calls), bounded by kMaxNesting
  Lines out_;
};

void RegisterExtensions() {
  static const bool registered = [] {
    cmark_gfm_core_extensions_ensure_registered();
    return true;
  }();
  (void)registered;
}

using Document = std::unique_ptr<cmark_node, NodeDeleter>;

Document Parse(std::string_view markdown) {
  RegisterExtensions();
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(CMARK_OPT_DEFAULT));
  // Not "autolink": see the header.
  for (const char* name : {"table", "strikethrough", "tasklist"}) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser.get(), ext);
    }
  }
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  return Document(cmark_parser_finish(parser.get()));
}

Lines RenderDocument(cmark_node* document, int width, const Glyphs& glyphs) {
  Lines lines = Renderer(width, glyphs).Render(document);
  while (!lines.empty() && lines.back().Width() == 0) lines.pop_back();
  return lines;
}

// The end of the line starting at `pos` (its line ending excluded) and the
// start of the next one. Line endings are CommonMark's: \n, \r or \r\n.
std::pair<size_t, size_t> LineAt(std::string_view text, size_t pos) {
  size_t end = text.find_first_of("\r\n", pos);
  if (end == std::string_view::npos) return {text.size(), text.size()};
  size_t next = end + 1;
  if (text[end] == '\r' && next < text.size() && text[next] == '\n') ++next;
  return {end, next};
}

std::optional<OpenCodeFence> FindOpenFence(cmark_node* document, std::string_view markdown) {
  cmark_node* block = cmark_node_last_child(document);
  if (block == nullptr || cmark_node_get_type(block) != CMARK_NODE_CODE_BLOCK) return std::nullopt;
  int length = 0;
  int offset = 0;
  char fence_char = 0;
  if (!cmark_node_get_fenced(block, &length, &offset, &fence_char)) return std::nullopt;
  OpenCodeFence fence;
  fence.fence_char = fence_char;
  fence.fence_length = length;
  // cmark numbers lines from 1, by the same line endings.
  size_t pos = 0;
  for (int line = 1; line < cmark_node_get_start_line(block) && pos < markdown.size(); ++line) {
    pos = LineAt(markdown, pos).second;
  }
  fence.line_begin = pos;
  fence.body_begin = LineAt(markdown, pos).second;
  // Open only when no line of the body closes it (a closed block can be
  // followed by blank lines).
  for (size_t at = fence.body_begin; at < markdown.size();) {
    auto [end, next] = LineAt(markdown, at);
    if (ClosesCodeFence(fence, markdown.substr(at, end - at))) return std::nullopt;
    at = next;
  }
  return fence;
}

}  // namespace

Lines RenderMarkdown(std::string_view markdown, int width, const Glyphs& glyphs) {
  if (markdown.size() > kMarkdownBudgetBytes) return RenderPlainMarkdown(markdown, width, glyphs);
  Document document = Parse(markdown);
  return RenderDocument(document.get(), width, glyphs);
}

MarkdownRendering RenderMarkdownFindingOpenFence(std::string_view markdown, int width,
                                                 const Glyphs& glyphs) {
  MarkdownRendering out;
  if (markdown.size() > kMarkdownBudgetBytes) {
    out.lines = RenderPlainMarkdown(markdown, width, glyphs);
    return out;
  }
  Document document = Parse(markdown);
  out.lines = RenderDocument(document.get(), width, glyphs);
  out.open_fence = FindOpenFence(document.get(), markdown);
  return out;
}

bool ClosesCodeFence(const OpenCodeFence& fence, std::string_view line) {
  size_t i = 0;
  int column = 0;  // tab stops every 4 columns, as CommonMark counts indentation
  for (; i < line.size() && (line[i] == ' ' || line[i] == '\t'); ++i) {
    column = line[i] == '\t' ? column + 4 - column % 4 : column + 1;
  }
  if (column >= 4) return false;
  int run = 0;
  for (; i < line.size() && line[i] == fence.fence_char; ++i) ++run;
  if (run < std::max(3, fence.fence_length)) return false;
  for (; i < line.size(); ++i) {
    if (line[i] != ' ' && line[i] != '\t') return false;
  }
  return true;
}

Lines RenderCodeFenceLines(std::string_view fence_line, std::string_view code, int width,
                           const Glyphs& glyphs) {
  std::string text;
  text.reserve(fence_line.size() + code.size());
  text.append(fence_line).append(code);
  Document document = Parse(text);
  cmark_node* block = cmark_node_last_child(document.get());
  if (block == nullptr || cmark_node_get_type(block) != CMARK_NODE_CODE_BLOCK) return {};
  return Renderer(width, glyphs).TopLevelCodeLines(block);
}

}  // namespace raw::tui
