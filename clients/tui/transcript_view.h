// TranscriptView: the scrollable window onto the transcript.
//
// Compose renders the cells whose content or width changed since the last
// frame (renderings are cached per cell id and version; a running tool card
// is re-rendered once per second for its elapsed time) and returns the rows
// that are visible. By default the view follows the end of the transcript;
// scrolling up anchors it to a cell, so text streaming in below, or older
// history inserted above, does not move what the user is reading.
//
// Single-threaded (the UI thread).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "clients/tui/cell_renderer.h"
#include "clients/tui/markdown_stream.h"
#include "clients/tui/transcript.h"

namespace raw::tui {

class TranscriptView {
 public:
  struct Frame {
    Lines rows;                      // at most `height`; top-aligned
    std::vector<uint64_t> cell_ids;  // the cell of each row (0: spacing)
  };

  explicit TranscriptView(const Glyphs& glyphs) : glyphs_(&glyphs) {}

  Frame Compose(const Transcript& transcript, int width, int height, int64_t now_unix_ms);

  // Scrolling takes effect at the next Compose.
  void ScrollBy(int rows) { pending_scroll_ += rows; }  // negative: up
  void ScrollToTop();
  void ScrollToBottom();
  bool following() const { return follow_; }
  // True when the first visible row is within a screen of the top: time to
  // load older history.
  bool near_top() const { return near_top_; }
  // Rows above and below the window at the last Compose.
  int rows_above() const { return rows_above_; }
  int rows_below() const { return rows_below_; }

  // Renders every cell again (after a colour or glyph change).
  void Invalidate() { cache_.clear(); }
  void set_glyphs(const Glyphs& glyphs) {
    glyphs_ = &glyphs;
    Invalidate();
  }

 private:
  struct Cached {
    uint64_t version = 0;
    int width = 0;
    int64_t second = 0;  // for running tool cards
    Lines lines;
    // Assistant messages: rendered chunk by chunk as they grow.
    std::unique_ptr<MarkdownStream> markdown;
    uint64_t text_resets = 0;  // the cell's when `markdown` last rendered it
  };
  const Lines& LinesOf(const Cell& cell, int width, int64_t now_unix_ms);

  const Glyphs* glyphs_;
  std::unordered_map<uint64_t, Cached> cache_;
  bool follow_ = true;
  uint64_t anchor_cell_ = 0;
  int anchor_offset_ = 0;
  int pending_scroll_ = 0;
  bool to_top_ = false;
  bool near_top_ = false;
  int rows_above_ = 0;
  int rows_below_ = 0;
};

}  // namespace raw::tui
