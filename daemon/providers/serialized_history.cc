#include "daemon/providers/serialized_history.h"

#include <algorithm>
#include <atomic>

namespace raw::providers {

void SerializedHistory::Validate(std::string_view format, uint64_t generation, size_t count) {
  if (generation == 0 || generation != generation_ || format != format_ || items_ > count) {
    format_ = std::string(format);
    generation_ = generation;
    items_ = 0;
    text_.clear();
  }
}

const std::string& SerializedHistory::Join(std::string_view format, uint64_t generation,
                                           const std::vector<events::ContextItem>& items,
                                           const Serialize& one) {
  Validate(format, generation, items.size());
  for (size_t i = items_; i < items.size(); ++i) {
    const size_t before = text_.size();
    if (!text_.empty()) text_ += ',';
    const size_t start = text_.size();
    one(items[i], &text_);
    if (text_.size() == start) text_.resize(before);  // an item with no entries
  }
  items_ = items.size();
  return text_;
}

const std::string& SerializedHistory::JoinClosed(std::string_view format, uint64_t generation,
                                                 const std::vector<events::ContextItem>& items,
                                                 size_t closed, const SerializeRange& range) {
  closed = std::min(closed, items.size());
  Validate(format, generation, closed);
  if (closed > items_) {
    const size_t before = text_.size();
    if (!text_.empty()) text_ += ',';
    const size_t start = text_.size();
    range(items, items_, closed, &text_);
    if (text_.size() == start) text_.resize(before);  // items with no entries
    items_ = closed;
  }
  return text_;
}

void AppendMergedHistory(std::string& out, SerializedHistory* history, std::string_view format,
                         uint64_t generation, const std::vector<events::ContextItem>& items,
                         size_t closed, const SerializedHistory::SerializeRange& range) {
  SerializedHistory uncached;
  SerializedHistory& kept_by = history != nullptr ? *history : uncached;
  const std::string& kept = kept_by.JoinClosed(format, generation, items, closed, range);
  std::string open;
  range(items, std::min(closed, items.size()), items.size(), &open);
  // One allocation (with room for the bytes that close the body): growing
  // by doubling would copy the kept text again.
  out.reserve(out.size() + kept.size() + open.size() + 16);
  out += kept;
  if (!kept.empty() && !open.empty()) out += ',';
  out += open;
}

uint64_t NewHistoryGeneration() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace raw::providers
