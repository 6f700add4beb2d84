#include "clients/tui/markdown_stream.h"

#include <utility>

namespace raw::tui {
namespace {

// A fence line: up to three spaces, then ``` or ~~~.
bool IsFence(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  std::string_view rest = line.substr(i);
  return rest.substr(0, 3) == "```" || rest.substr(0, 3) == "~~~";
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// The line of `text` starting at `pos` as CommonMark cuts lines (at \n, \r
// or \r\n): its end without the line ending, and where the next one starts.
std::pair<size_t, size_t> CommonMarkLine(std::string_view text, size_t pos) {
  size_t end = text.find_first_of("\r\n", pos);
  if (end == std::string_view::npos) return {text.size(), text.size()};
  size_t next = end + 1;
  if (text[end] == '\r' && next < text.size() && text[next] == '\n') ++next;
  return {end, next};
}

void Append(Lines& out, Lines rows) {
  for (auto& row : rows) out.push_back(std::move(row));
}

}  // namespace

void MarkdownStream::Reset(int width, const Glyphs& glyphs) {
  width_ = width;
  glyphs_ = &glyphs;
  seen_.clear();
  done_size_ = 0;
  out_.clear();
  done_rows_ = 0;
  stable_rows_ = 0;
  scan_pos_ = 0;
  in_fence_ = false;
  after_blank_ = false;
  fence_opened_at_ = 0;
  not_open_at_.reset();
  open_.reset();
  plain_.reset();
}

Lines MarkdownStream::Markdown(std::string_view markdown) {
  rendered_bytes_ += markdown.size();
  return RenderMarkdown(markdown, width_, *glyphs_);
}

Lines MarkdownStream::CodeLines(std::string_view code) {
  rendered_bytes_ += open_->fence_line.size() + code.size();
  return RenderCodeFenceLines(open_->fence_line, code, width_, *glyphs_);
}

void MarkdownStream::FinishChunk(size_t end, size_t end_rows, Lines rows) {
  out_.resize(end_rows);
  if (!rows.empty()) {
    if (!out_.empty()) out_.emplace_back();
    Append(out_, std::move(rows));
  }
  done_rows_ = stable_rows_ = out_.size();
  done_size_ = end;
  open_.reset();
  plain_.reset();
}

void MarkdownStream::Scan(std::string_view text) {
  while (scan_pos_ < text.size()) {
    size_t nl = text.find('\n', scan_pos_);
    if (nl == std::string_view::npos) break;  // the last line may still grow
    std::string_view line = text.substr(scan_pos_, nl - scan_pos_);
    if (after_blank_ && !in_fence_ && !IsBlank(line) && line[0] != ' ' && line[0] != '\t' &&
        scan_pos_ > done_size_) {
      // [done_size_, scan_pos_) is finished.
      FinishChunk(scan_pos_, done_rows_, Markdown(text.substr(done_size_, scan_pos_ - done_size_)));
    }
    if (IsFence(line)) {
      in_fence_ = !in_fence_;
      if (in_fence_) fence_opened_at_ = scan_pos_;
    }
    after_blank_ = IsBlank(line);
    scan_pos_ = nl + 1;
  }
}

void MarkdownStream::RenderWhole(std::string_view chunk) {
  open_.reset();
  plain_.reset();
  out_.resize(done_rows_);
  stable_rows_ = done_rows_;
  Lines tail = Markdown(chunk);
  if (!tail.empty() && !out_.empty()) out_.emplace_back();
  Append(out_, std::move(tail));
}

void MarkdownStream::RenderPlain(std::string_view text) {
  if (!plain_) {
    out_.resize(done_rows_);
    stable_rows_ = done_rows_;
    plain_.emplace(width_, *glyphs_, /*after_rows=*/!out_.empty());
    plain_to_ = done_size_;
  }
  out_.resize(stable_rows_);
  // The pieces completed since the last call: their rows are kept.
  size_t pos = plain_to_;
  while (pos < text.size()) {
    PlainPiece piece = PlainPieceEnd(text, pos);
    if (!piece.complete) break;
    rendered_bytes_ += piece.next - pos;
    plain_->AddPiece(text.substr(pos, piece.end - pos), out_);
    pos = piece.next;
  }
  plain_to_ = pos;
  stable_rows_ = out_.size();
  // The piece still growing, and the end of the text, rendered again at
  // every call.
  PlainMarkdown rest = *plain_;
  if (pos < text.size()) {
    rendered_bytes_ += text.size() - pos;
    rest.AddPiece(text.substr(pos), out_);
  }
  rest.Finish(out_);
}

bool MarkdownStream::RenderGrowing(std::string_view text) {
  const size_t complete = scan_pos_;  // the end of the complete lines
  if (!open_ && in_fence_ && not_open_at_ != fence_opened_at_ && complete > done_size_ &&
      complete - done_size_ <= kMarkdownBudgetBytes) {
    // The chunk may end in an open top-level code block: ask the parser.
    std::string_view chunk = text.substr(done_size_, complete - done_size_);
    rendered_bytes_ += chunk.size();
    MarkdownRendering whole = RenderMarkdownFindingOpenFence(chunk, width_, *glyphs_);
    if (!whole.open_fence) {
      not_open_at_ = fence_opened_at_;
    } else if (whole.open_fence->body_begin < chunk.size()) {
      // Its body has a line (an empty body renders as one empty line of
      // code, which the first line of code replaces).
      out_.resize(done_rows_);
      if (!whole.lines.empty() && !out_.empty()) out_.emplace_back();
      Append(out_, std::move(whole.lines));
      stable_rows_ = out_.size();
      OpenBlock block;
      block.fence = *whole.open_fence;
      block.fence.line_begin += done_size_;
      block.fence.body_begin += done_size_;
      block.fence_line = std::string(
          text.substr(block.fence.line_begin, block.fence.body_begin - block.fence.line_begin));
      block.rendered_to = complete;
      open_ = std::move(block);
      plain_.reset();
    }
  }
  if (!open_) {
    if (text.size() - done_size_ > kMarkdownBudgetBytes) {
      RenderPlain(text);
    } else {
      RenderWhole(text.substr(done_size_));
    }
    return true;
  }
  out_.resize(stable_rows_);
  // The lines completed since the last call: rows of code, up to a line
  // that closes the block, which ends the chunk.
  size_t pos = open_->rendered_to;
  while (pos < complete) {
    auto [end, next] = CommonMarkLine(text, pos);
    if (ClosesCodeFence(open_->fence, text.substr(pos, end - pos))) {
      if (pos > open_->rendered_to) {
        Append(out_, CodeLines(text.substr(open_->rendered_to, pos - open_->rendered_to)));
      }
      FinishChunk(next, out_.size(), Lines());
      scan_pos_ = next;
      in_fence_ = false;
      after_blank_ = false;
      return false;
    }
    pos = next;
  }
  if (complete > open_->rendered_to) {
    Append(out_, CodeLines(text.substr(open_->rendered_to, complete - open_->rendered_to)));
    open_->rendered_to = complete;
    stable_rows_ = out_.size();
  }
  // The unfinished last line, rendered again at every call.
  std::string_view partial = text.substr(complete);
  if (partial.empty()) return true;
  auto [end, next] = CommonMarkLine(partial, 0);
  if (ClosesCodeFence(open_->fence, partial.substr(0, end))) {
    // The block closes where the text ends: the closing line adds no row.
    if (next >= partial.size()) return true;
    RenderWhole(text.substr(done_size_));  // more after it, in the same line
    return true;
  }
  for (size_t at = next; at < partial.size();) {
    auto [line_end, line_next] = CommonMarkLine(partial, at);
    if (ClosesCodeFence(open_->fence, partial.substr(at, line_end - at))) {
      RenderWhole(text.substr(done_size_));
      return true;
    }
    at = line_next;
  }
  Append(out_, CodeLines(partial));
  return true;
}

const Lines& MarkdownStream::Render(std::string_view text, int width, const Glyphs& glyphs) {
  if (width != width_ || &glyphs != glyphs_ || text.size() < seen_.size() ||
      text.compare(0, seen_.size(), seen_) != 0) {
    Reset(width, glyphs);
  }
  return Continue(text);
}

const Lines& MarkdownStream::RenderAppended(std::string_view text, int width,
                                            const Glyphs& glyphs) {
  if (width != width_ || &glyphs != glyphs_ || text.size() < seen_.size()) Reset(width, glyphs);
  return Continue(text);
}

const Lines& MarkdownStream::Continue(std::string_view text) {
  do {
    Scan(text);
  } while (!RenderGrowing(text));
  if (scan_pos_ > seen_.size()) seen_.append(text.substr(seen_.size(), scan_pos_ - seen_.size()));
  return out_;
}

}  // namespace raw::tui
