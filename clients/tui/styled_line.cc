#include "clients/tui/styled_line.h"

#include "clients/tui/text_width.h"

namespace raw::tui {

StyledLine::StyledLine(std::string text, Style style) {
  if (!text.empty()) spans.push_back(Span{std::move(text), style});
}

StyledLine& StyledLine::Add(std::string_view text, Style style) {
  if (text.empty()) return *this;
  if (!spans.empty() && spans.back().style == style) {
    spans.back().text.append(text);
  } else {
    spans.push_back(Span{std::string(text), style});
  }
  return *this;
}

StyledLine& StyledLine::Append(const StyledLine& other) {
  for (const Span& span : other.spans) Add(span.text, span.style);
  return *this;
}

int StyledLine::Width() const {
  int width = 0;
  for (const Span& span : spans) width += DisplayWidth(span.text);
  return width;
}

std::string StyledLine::PlainText() const {
  std::string text;
  for (const Span& span : spans) text += span.text;
  return text;
}

const Glyphs& Glyphs::Unicode() {
  static const Glyphs glyphs = {.bullet = "•",
                                .bullet2 = "◦",
                                .quote_bar = "│",
                                .code_bar = "▎",
                                .rule = "─",
                                .ellipsis = "…",
                                .table_v = "│",
                                .table_h = "─",
                                .table_cross = "┼",
                                .table_left = "├",
                                .table_right = "┤",
                                .prompt = "›",
                                .tool_running = "●",
                                .tool_ok = "✓",
                                .tool_error = "✗",
                                .tool_waiting = "?",
                                .tool_denied = "⊘",
                                .collapsed = "▸",
                                .expanded = "▾",
                                .branch = "└",
                                .continuation = "↪"};
  return glyphs;
}

const Glyphs& Glyphs::Ascii() {
  static const Glyphs glyphs = {.bullet = "*",
                                .bullet2 = "-",
                                .quote_bar = "|",
                                .code_bar = "|",
                                .rule = "-",
                                .ellipsis = "...",
                                .table_v = "|",
                                .table_h = "-",
                                .table_cross = "+",
                                .table_left = "+",
                                .table_right = "+",
                                .prompt = ">",
                                .tool_running = "*",
                                .tool_ok = "+",
                                .tool_error = "x",
                                .tool_waiting = "?",
                                .tool_denied = "!",
                                .collapsed = ">",
                                .expanded = "v",
                                .branch = "`",
                                .continuation = ">"};
  return glyphs;
}

}  // namespace raw::tui
