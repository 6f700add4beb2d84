// Markdown too large to parse, rendered as plain text.
//
// cmark-gfm 0.29 takes time that grows faster than its input on some
// inputs ("a <?" or "![[]()" repeated: close to a second for 64 KiB, and
// four times as long for twice the input), and an answer is rendered again
// as it grows and whenever the width changes. RenderMarkdown therefore
// parses at most kMarkdownBudgetBytes at once; a larger text (a growing
// MarkdownStream chunk: the text between two blank lines) is shown as its
// lines, wrapped, without Markdown's structure, sanitized like everything
// else. Top-level fenced code blocks keep their code style, since a long
// answer is most often a long block of code and its lines need no parser.
//
// PlainMarkdown takes the text piece by piece (a line, or a part of a long
// line: PlainPieceEnd), so that a stream keeps the rows of the pieces it
// has seen and renders only what was appended: rendering the pieces of a
// text in order, then Finish, gives what RenderPlainMarkdown gives for the
// whole text.
//
// Value type; single-threaded.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "clients/tui/markdown_renderer.h"
#include "clients/tui/styled_line.h"

namespace raw::tui {

// The most bytes of Markdown parsed at once.
inline constexpr size_t kMarkdownBudgetBytes = 32 * 1024;

// Lines longer than this are shown as several lines of at most this many
// bytes (cut at a character boundary), so that a stream re-renders at most
// this much of a line that is still growing.
inline constexpr size_t kPlainPieceBytes = 4 * 1024;

// Where the piece of `text` starting at `pos` ends: at the end of its line
// (before the '\n'), or after kPlainPieceBytes bytes, backed off to the
// start of a character, when the line is longer. `complete` tells whether
// the piece is final: its line ending or the bytes after its cut have
// arrived (a piece at the end of a text still growing may grow).
struct PlainPiece {
  size_t end = 0;
  size_t next = 0;  // where the next piece starts (after the '\n')
  bool complete = false;
};
PlainPiece PlainPieceEnd(std::string_view text, size_t pos);

class PlainMarkdown {
 public:
  // `after_rows`: the rows follow rows of something else, from which one
  // blank row separates them.
  PlainMarkdown(int width, const Glyphs& glyphs, bool after_rows = false);

  // Appends the rows of one piece (PlainPieceEnd) to `out`.
  void AddPiece(std::string_view piece, Lines& out);
  // Appends what the end of the text adds: the empty row of a code block
  // opened without a line.
  void Finish(Lines& out);

 private:
  void Emit(Lines rows, Lines& out);

  int width_;
  const Glyphs* glyphs_;
  bool any_rows_;
  bool separate_ = false;  // a blank row before the next one
  // The top-level fenced code block the pieces are in.
  std::optional<OpenCodeFence> fence_;
  int fence_indent_ = 0;  // spaces removed from its lines
  bool fence_has_rows_ = false;
};

// The whole of `text` as PlainMarkdown renders it.
Lines RenderPlainMarkdown(std::string_view text, int width, const Glyphs& glyphs);

}  // namespace raw::tui
