// SerializedHistory: a session's model context as one adapter last
// serialized it, so that the next request serializes only the items
// appended since, and the cost of building a body stops growing with the
// history.
//
// Reuse rests on one rule of the loop (loop/session_context.h): the items
// of a context are only ever appended to, and whoever replaces them
// (loading, compaction, /clear) gives the context a new generation, a
// number never used before in the process. Serialized text is reused only
// for the same generation, the same adapter format (the adapter and every
// setting that changes its bytes) and no more items than the request has;
// anything else starts afresh. The result is byte for byte what serializing
// every item would give.
//
// Thread-compatible: used by one request at a time (its session's turn).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/events/conversation.h"

namespace raw::providers {

class SerializedHistory {
 public:
  // Appends one item's serialized form to `out`: one JSON value, or
  // several joined by "," (an item that maps to several entries), or
  // nothing.
  using Serialize = std::function<void(const events::ContextItem& item, std::string* out)>;

  // The items' non-empty serialized forms joined by ",": what was kept for
  // (`format`, `generation`) and the items after it. Generation 0 keeps
  // nothing.
  const std::string& Join(std::string_view format, uint64_t generation,
                          const std::vector<events::ContextItem>& items, const Serialize& one);

  size_t items() const { return items_; }

 private:
  std::string format_;
  uint64_t generation_ = 0;
  size_t items_ = 0;
  std::string text_;
};

// A generation for a context whose items were just replaced: never 0, never
// the same twice in the process. Thread-safe.
uint64_t NewHistoryGeneration();

}  // namespace raw::providers
