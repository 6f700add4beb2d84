// MarkdownStream: renders a Markdown text that grows (a streamed answer)
// without rendering all of it again for every piece.
//
// The text is cut into top-level chunks at blank lines outside fenced code,
// where the next line starts a new block (not indented: an indented line
// continues a list item or is code), and after the closing line of a
// top-level fenced code block. A finished chunk is rendered once and kept;
// each call renders only the chunk still growing. Chunks are separated by
// one blank line, as RenderMarkdown separates blocks, so the result equals
// rendering the whole text for everything but constructs that span chunks
// (reference-style link definitions below their use, loose lists whose
// items are rendered as consecutive lists), which look the same.
//
// A growing chunk that ends in an open top-level fenced code block (a model
// streaming a long block) keeps the rows of the block's complete lines:
// each call renders the lines completed since the last one and the
// unfinished last line, so the work per call follows what was appended, not
// the size of the block (RenderCodeFenceLines). Render also compares the
// text with the part already rendered (at memcmp speed, but in proportion
// to the text); RenderAppended is for a caller that knows the text was only
// appended to.
//
// A growing chunk over kMarkdownBudgetBytes (a long answer without blank
// lines) is not parsed but rendered as plain text (markdown_plain.h), piece
// by piece like such a code block: each call renders the pieces completed
// since the last one and the one still growing (at most kPlainPieceBytes).
// So no call parses more than kMarkdownBudgetBytes, and none renders much
// more than that and what was appended.
//
// A call whose text does not extend the previous one (a committed message
// that differs, a new width) starts over. Single-threaded.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "clients/tui/markdown_plain.h"
#include "clients/tui/markdown_renderer.h"
#include "clients/tui/styled_line.h"

namespace raw::tui {

class MarkdownStream {
 public:
  const Lines& Render(std::string_view text, int width, const Glyphs& glyphs);
  // Render for a caller that knows `text` extends the text of the last call
  // (only appended to): the text is not compared with what was rendered.
  // REQUIRES: it does, when its width and glyphs are those of the last call.
  const Lines& RenderAppended(std::string_view text, int width, const Glyphs& glyphs);
  // What the last Render returned.
  const Lines& lines() const { return out_; }

  // Bytes of text handed to the renderer (parsed, or rendered as plain
  // text) since construction: what tests check to see that a growing block
  // or chunk is not rendered again whole.
  size_t rendered_bytes() const { return rendered_bytes_; }

 private:
  // The growing chunk's open top-level code block: its rows up to the last
  // complete line are kept in out_.
  struct OpenBlock {
    OpenCodeFence fence;     // offsets into the text
    std::string fence_line;  // the opening line, with its line ending
    size_t rendered_to = 0;  // the end of the lines whose rows are kept
  };

  void Reset(int width, const Glyphs& glyphs);
  const Lines& Continue(std::string_view text);
  // Finds chunk ends in the complete lines not yet looked at.
  void Scan(std::string_view text);
  // Keeps out_[0, end_rows) plus `rows` as the finished chunks, which end
  // at `end` in the text.
  void FinishChunk(size_t end, size_t end_rows, Lines rows);
  // Renders the growing chunk after the finished ones. False when it found
  // the open block closed and finished the chunk there: scan again.
  bool RenderGrowing(std::string_view text);
  void RenderWhole(std::string_view chunk);
  // Renders the growing chunk, over the budget, as plain text.
  void RenderPlain(std::string_view text);
  Lines Markdown(std::string_view markdown);
  Lines CodeLines(std::string_view code);

  int width_ = -1;
  const Glyphs* glyphs_ = nullptr;
  // The text up to scan_pos_, which every later text must start with.
  std::string seen_;
  size_t done_size_ = 0;  // the text of the finished chunks
  // The finished chunks' lines (separated by blank lines: the first
  // done_rows_), then the growing chunk's: its kept rows up to
  // stable_rows_, then those of what may still change.
  Lines out_;
  size_t done_rows_ = 0;
  size_t stable_rows_ = 0;
  // The chunk scan, continued from call to call.
  size_t scan_pos_ = 0;  // the first line not looked at
  bool in_fence_ = false;
  bool after_blank_ = false;
  size_t fence_opened_at_ = 0;  // the line that set in_fence_
  // The fence (fence_opened_at_) that was found not to open a top-level
  // block, so that it is not looked for again.
  std::optional<size_t> not_open_at_;
  std::optional<OpenBlock> open_;
  // The growing chunk rendered as plain text: the state after the final
  // pieces up to plain_to_, whose rows are kept in out_.
  std::optional<PlainMarkdown> plain_;
  size_t plain_to_ = 0;
  size_t rendered_bytes_ = 0;
};

}  // namespace raw::tui
