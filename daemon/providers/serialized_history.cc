#include "daemon/providers/serialized_history.h"

#include <algorithm>
#include <atomic>
#include <utility>
#include <variant>

namespace raw::providers {
namespace {

// Items appended at once past which the text is sized for them first: a
// session's whole history after a load or a compaction, not one step's
// items (reserving for those at every request would undo the string's
// geometric growth).
constexpr size_t kReserveFromItems = 64;

// About how many bytes an item takes serialized: its text plus the keys and
// punctuation around it. An estimate, for sizing only.
size_t EstimatedBytes(const events::ContextItem& item) {
  constexpr size_t kFraming = 64;
  if (const auto* user = std::get_if<events::UserText>(&item)) {
    size_t bytes = kFraming + user->text.size();
    for (const events::ImagePart& image : user->images) bytes += kFraming + image.base64.size();
    return bytes;
  }
  if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    size_t bytes = kFraming + turn->text.size() + turn->reasoning.size();
    for (const events::ToolCallRequest& call : turn->tool_calls) {
      bytes += kFraming + call.call_id.size() + call.name.size() + call.arguments.size();
    }
    for (const events::OpaqueBlob& blob : turn->opaque) bytes += kFraming + blob.data.size();
    return bytes;
  }
  const auto& outcome = std::get<events::ToolOutcome>(item);
  return kFraming + outcome.call_id.size() + outcome.name.size() + outcome.content.size();
}

// Sizes `text` for items [from, to) when they are many: one allocation and
// no copies as it grows, where doubling would copy it about once more.
void ReserveFor(std::string& text, const std::vector<events::ContextItem>& items, size_t from,
                size_t to) {
  if (to - from < kReserveFromItems) return;
  size_t bytes = 0;
  for (size_t i = from; i < to; ++i) bytes += EstimatedBytes(items[i]);
  text.reserve(text.size() + bytes + bytes / 8);
}

}  // namespace

void SerializedHistory::Validate(std::string_view format, uint64_t generation, size_t count) {
  if (generation == 0 || generation != generation_ || format != format_ || items_ > count) {
    format_ = std::string(format);
    generation_ = generation;
    items_ = 0;
    text_.reset();
  }
}

std::string& SerializedHistory::Writable() {
  if (text_ == nullptr) {
    text_ = std::make_shared<std::string>();
  } else if (text_.use_count() > 1) {
    // A request still sends this text: it must not change under it.
    text_ = std::make_shared<std::string>(*text_);
  } else {
    // The last other holder let go, maybe on another thread: its reads of
    // the text happen before the appends that follow.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *text_;
}

std::shared_ptr<const std::string> SerializedHistory::Kept() {
  if (text_ == nullptr) text_ = std::make_shared<std::string>();
  return text_;
}

std::shared_ptr<const std::string> SerializedHistory::Join(
    std::string_view format, uint64_t generation, const std::vector<events::ContextItem>& items,
    const Serialize& one) {
  Validate(format, generation, items.size());
  if (items_ < items.size()) {
    std::string& text = Writable();
    ReserveFor(text, items, items_, items.size());
    for (size_t i = items_; i < items.size(); ++i) {
      const size_t before = text.size();
      if (!text.empty()) text += ',';
      const size_t start = text.size();
      one(items[i], &text);
      if (text.size() == start) text.resize(before);  // an item with no entries
    }
    items_ = items.size();
  }
  return Kept();
}

std::shared_ptr<const std::string> SerializedHistory::JoinClosed(
    std::string_view format, uint64_t generation, const std::vector<events::ContextItem>& items,
    size_t closed, const SerializeRange& range) {
  closed = std::min(closed, items.size());
  Validate(format, generation, closed);
  if (closed > items_) {
    std::string& text = Writable();
    ReserveFor(text, items, items_, closed);
    const size_t before = text.size();
    if (!text.empty()) text += ',';
    const size_t start = text.size();
    range(items, items_, closed, &text);
    if (text.size() == start) text.resize(before);  // items with no entries
    items_ = closed;
  }
  return Kept();
}

http::PiecedBody KeptHistoryBody(std::string head, std::shared_ptr<const std::string> items,
                                 std::string tail) {
  http::PiecedBody body{std::move(head), {}};
  if (!items->empty()) body.shared.push_back(std::move(items));
  body.shared.push_back(std::make_shared<const std::string>(std::move(tail)));
  return body;
}

http::PiecedBody MergedHistoryBody(std::string head, SerializedHistory* history,
                                   std::string_view format, uint64_t generation,
                                   const std::vector<events::ContextItem>& items, size_t closed,
                                   const SerializedHistory::SerializeRange& range,
                                   std::string_view tail) {
  SerializedHistory uncached;
  SerializedHistory& kept_by = history != nullptr ? *history : uncached;
  std::shared_ptr<const std::string> kept =
      kept_by.JoinClosed(format, generation, items, closed, range);
  std::string open;
  range(items, std::min(closed, items.size()), items.size(), &open);
  std::string rest;
  rest.reserve(open.size() + tail.size() + 1);
  if (!kept->empty() && !open.empty()) rest += ',';
  rest += open;
  rest += tail;
  return KeptHistoryBody(std::move(head), std::move(kept), std::move(rest));
}

uint64_t NewHistoryGeneration() {
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

}  // namespace raw::providers
