#include "daemon/providers/serialized_history.h"

#include <atomic>

namespace raw::providers {

const std::string& SerializedHistory::Join(std::string_view format, uint64_t generation,
                                           const std::vector<events::ContextItem>& items,
                                           const Serialize& one) {
  if (generation == 0 || generation != generation_ || format != format_ || items_ > items.size()) {
    format_ = std::string(format);
    generation_ = generation;
    items_ = 0;
    text_.clear();
  }
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

uint64_t NewHistoryGeneration() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace raw::providers
