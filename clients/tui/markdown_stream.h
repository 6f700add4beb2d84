// MarkdownStream: renders a Markdown text that grows (a streamed answer)
// without rendering all of it again for every piece.
//
// The text is cut into top-level chunks at blank lines outside fenced code,
// where the next line starts a new block (not indented: an indented line
// continues a list item or is code). A finished chunk is rendered once and
// kept; each call renders only the chunk still growing. Chunks are
// separated by one blank line, as RenderMarkdown separates blocks, so the
// result equals rendering the whole text for everything but constructs
// that span blank lines with a flush-left line after them (reference-style
// link definitions below their use, loose lists whose items are rendered
// as consecutive lists), which look the same.
//
// A call whose text does not extend the previous one (a committed message
// that differs, a new width) starts over. Single-threaded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clients/tui/styled_line.h"

namespace raw::tui {

class MarkdownStream {
 public:
  const Lines& Render(std::string_view text, int width, const Glyphs& glyphs);
  // What the last Render returned.
  const Lines& lines() const { return out_; }

 private:
  void Reset(int width, const Glyphs& glyphs);

  int width_ = -1;
  const Glyphs* glyphs_ = nullptr;
  std::string done_text_;  // the text of the finished chunks
  // The finished chunks' lines (separated by blank lines: the first
  // done_rows_), then the growing chunk's.
  Lines out_;
  size_t done_rows_ = 0;
};

}  // namespace raw::tui
