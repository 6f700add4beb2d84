#include "clients/tui/transcript_view.h"

#include <algorithm>

namespace raw::tui {
namespace {

bool NeedsSpacing(const Cell& previous, const Cell& cell) {
  // Consecutive tool cards form one block.
  return !(previous.kind == CellKind::kTool && cell.kind == CellKind::kTool);
}

}  // namespace

const Lines& TranscriptView::LinesOf(const Cell& cell, int width, int64_t now_unix_ms) {
  bool timed = cell.kind == CellKind::kTool && cell.call.status == ToolStatus::kRunning;
  int64_t second = timed ? now_unix_ms / 1000 : 0;
  Cached& cached = cache_[cell.id];
  if (cell.kind == CellKind::kAssistant) {
    if (cached.markdown && cached.width == width && cached.version == cell.version) {
      return cached.markdown->lines();
    }
    // Text that was only appended to since the last rendering is not
    // compared with what was rendered (the comparison costs as much as the
    // text is long, at every delta).
    bool appended = cached.markdown && cached.text_resets == cell.text_resets;
    if (!cached.markdown) cached.markdown = std::make_unique<MarkdownStream>();
    cached.width = width;
    cached.version = cell.version;
    cached.text_resets = cell.text_resets;
    return appended ? cached.markdown->RenderAppended(cell.text, width, *glyphs_)
                    : cached.markdown->Render(cell.text, width, *glyphs_);
  }
  if (cached.width != width || cached.version != cell.version || cached.second != second) {
    RenderContext ctx;
    ctx.width = width;
    ctx.glyphs = glyphs_;
    ctx.now_unix_ms = now_unix_ms;
    cached.lines = RenderCell(cell, ctx);
    cached.width = width;
    cached.version = cell.version;
    cached.second = second;
  }
  return cached.lines;
}

void TranscriptView::ScrollToTop() {
  to_top_ = true;
  pending_scroll_ = 0;
}

void TranscriptView::ScrollToBottom() {
  follow_ = true;
  to_top_ = false;
  pending_scroll_ = 0;
}

TranscriptView::Frame TranscriptView::Compose(const Transcript& transcript, int width,
                                              int height, int64_t now_unix_ms) {
  struct Placed {
    const Lines* lines;
    uint64_t id;
    int start;    // first row of the cell's lines
    bool spaced;  // a blank row before it
  };
  std::vector<Placed> placed;
  placed.reserve(transcript.cells().size());
  int total = 0;
  const Cell* previous = nullptr;
  for (const Cell& cell : transcript.cells()) {
    const Lines& lines = LinesOf(cell, width, now_unix_ms);
    if (lines.empty()) continue;
    bool spaced = previous != nullptr && NeedsSpacing(*previous, cell);
    if (spaced) ++total;
    placed.push_back(Placed{&lines, cell.id, total, spaced});
    total += static_cast<int>(lines.size());
    previous = &cell;
  }
  // Drop renderings of cells that no longer exist, now and then.
  if (cache_.size() > transcript.cells().size() * 2 + 64) {
    std::unordered_map<uint64_t, Cached> kept;
    for (const Cell& cell : transcript.cells()) {
      auto it = cache_.find(cell.id);
      if (it != cache_.end()) kept.emplace(cell.id, std::move(it->second));
    }
    cache_ = std::move(kept);
  }

  const int max_top = std::max(0, total - height);
  int top = max_top;
  if (to_top_) {
    follow_ = false;
    top = 0;
    to_top_ = false;
  } else if (!follow_) {
    top = -1;
    for (const Placed& p : placed) {
      if (p.id == anchor_cell_) {
        top = p.start + anchor_offset_;
        break;
      }
    }
    if (top < 0) {
      follow_ = true;
      top = max_top;
    }
  }
  if (pending_scroll_ != 0) {
    top += pending_scroll_;
    pending_scroll_ = 0;
    follow_ = false;
  }
  top = std::clamp(top, 0, max_top);
  if (top >= max_top) follow_ = true;
  if (!follow_) {
    // Anchor: the cell holding the top row (or the next one).
    auto it = std::upper_bound(placed.begin(), placed.end(), top,
                               [](int row, const Placed& p) { return row < p.start; });
    if (it != placed.begin()) --it;
    anchor_cell_ = it->id;
    anchor_offset_ = top - it->start;
  }
  near_top_ = top < height;
  rows_above_ = top;
  rows_below_ = std::max(0, total - top - height);

  Frame frame;
  auto first = std::upper_bound(placed.begin(), placed.end(), top,
                                [](int row, const Placed& p) { return row < p.start; });
  if (first != placed.begin()) --first;
  for (auto it = first; it != placed.end() && static_cast<int>(frame.rows.size()) < height; ++it) {
    if (it->spaced) {
      int row = it->start - 1;
      if (row >= top) {
        frame.rows.emplace_back();
        frame.cell_ids.push_back(0);
      }
    }
    // From the cell's first visible row: a cell can have many thousands.
    size_t from = it->start < top ? static_cast<size_t>(top - it->start) : 0;
    for (size_t i = from; i < it->lines->size() && static_cast<int>(frame.rows.size()) < height;
         ++i) {
      frame.rows.push_back((*it->lines)[i]);
      frame.cell_ids.push_back(it->id);
    }
  }
  return frame;
}

}  // namespace raw::tui
