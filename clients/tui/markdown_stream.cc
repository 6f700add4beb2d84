#include "clients/tui/markdown_stream.h"

#include "clients/tui/markdown_renderer.h"

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

}  // namespace

void MarkdownStream::Reset(int width, const Glyphs& glyphs) {
  width_ = width;
  glyphs_ = &glyphs;
  done_text_.clear();
  out_.clear();
  done_rows_ = 0;
}

const Lines& MarkdownStream::Render(std::string_view text, int width, const Glyphs& glyphs) {
  if (width != width_ || &glyphs != glyphs_ ||
      text.substr(0, done_text_.size()) != done_text_) {
    Reset(width, glyphs);
  }
  // Find chunk ends after what is done: complete lines only.
  size_t chunk_start = done_text_.size();
  size_t pos = chunk_start;
  bool in_fence = false;
  bool after_blank = false;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;  // the last line may still grow
    std::string_view line = text.substr(pos, nl - pos);
    if (after_blank && !in_fence && !IsBlank(line) && line[0] != ' ' && line[0] != '\t' &&
        pos > chunk_start) {
      // [chunk_start, pos) is finished.
      Lines lines = RenderMarkdown(text.substr(chunk_start, pos - chunk_start), width_, *glyphs_);
      out_.resize(done_rows_);
      if (!lines.empty()) {
        if (!out_.empty()) out_.emplace_back();
        for (auto& l : lines) out_.push_back(std::move(l));
      }
      done_rows_ = out_.size();
      done_text_.assign(text.substr(0, pos));
      chunk_start = pos;
    }
    if (IsFence(line)) in_fence = !in_fence;
    after_blank = IsBlank(line);
    pos = nl + 1;
  }
  out_.resize(done_rows_);
  Lines tail = RenderMarkdown(text.substr(done_text_.size()), width_, *glyphs_);
  if (!tail.empty() && !out_.empty()) out_.emplace_back();
  for (auto& l : tail) out_.push_back(std::move(l));
  return out_;
}

}  // namespace raw::tui
