#include "common/line_framer.h"

namespace raw {

bool LineFramer::Feed(std::string_view chunk, const std::function<bool(std::string)>& on_line,
                      const std::function<bool(size_t)>& on_overlong) {
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    chunk.remove_prefix(nl == std::string_view::npos ? chunk.size() : nl + 1);
    if (skipping_) {
      skipped_ += piece.size();
    } else if (line_.size() + piece.size() > max_line_bytes_) {
      skipping_ = true;
      skipped_ = line_.size() + piece.size();
      line_.clear();
      line_.shrink_to_fit();
    } else {
      line_.append(piece);
    }
    if (nl == std::string_view::npos) break;
    // A whole line.
    if (skipping_) {
      const size_t bytes = skipped_;
      skipping_ = false;
      skipped_ = 0;
      if (!on_overlong(bytes)) return false;
      continue;
    }
    std::string line = std::move(line_);
    line_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos && !on_line(std::move(line))) {
      return false;
    }
  }
  return true;
}

}  // namespace raw
