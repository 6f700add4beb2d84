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
// The kept text is handed out shared (an HTTP request sends it without a
// copy, http::PiecedBody) and never changes while anyone else holds it:
// appending to text still held elsewhere appends to a copy.
//
// Thread-compatible: used by one request at a time (its session's turn).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/events/conversation.h"
#include "daemon/http/http_client.h"

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
  std::shared_ptr<const std::string> Join(std::string_view format, uint64_t generation,
                                          const std::vector<events::ContextItem>& items,
                                          const Serialize& one);

  // Appends the entries of items [from, to) of `items`, joined by ",", to
  // `out`; called only with `from` and `to` at closed points (see below).
  using SerializeRange = std::function<void(const std::vector<events::ContextItem>& items,
                                            size_t from, size_t to, std::string* out)>;

  // For adapters that merge neighbouring items into one entry (tool results
  // into one user message): the entries of items [0, `closed`), where
  // `closed` is a point no item appended later can change, by the adapter's
  // own rule (just after an item that ends an entry). The caller serializes
  // the items after `closed` itself, at every request. What was kept is
  // reused as for Join; `closed` below the kept count starts afresh.
  std::shared_ptr<const std::string> JoinClosed(std::string_view format, uint64_t generation,
                                                const std::vector<events::ContextItem>& items,
                                                size_t closed, const SerializeRange& range);

  // The items kept and the generation they belong to (0: nothing kept).
  size_t items() const { return items_; }
  uint64_t generation() const { return generation_; }

 private:
  // Starts afresh unless what is kept belongs to (format, generation) and
  // covers no more than `count` items.
  void Validate(std::string_view format, uint64_t generation, size_t count);
  // The kept text, to append to: a copy of it if a request still holds it.
  std::string& Writable();
  std::shared_ptr<const std::string> Kept();

  std::string format_;
  uint64_t generation_ = 0;
  size_t items_ = 0;
  std::shared_ptr<std::string> text_;  // null: nothing kept
};

// A body for an adapter that keeps its history with Join: `head`, the kept
// `items` text shared, then `tail`.
http::PiecedBody KeptHistoryBody(std::string head, std::shared_ptr<const std::string> items,
                                 std::string tail);

// A body for an adapter that merges neighbouring items: `head`, the entries
// of all `items` joined by ",", those before `closed` (see JoinClosed) as
// what `history` keeps (null: nothing is kept), shared, the rest serialized
// now by `range`, then `tail`.
http::PiecedBody MergedHistoryBody(std::string head, SerializedHistory* history,
                                   std::string_view format, uint64_t generation,
                                   const std::vector<events::ContextItem>& items, size_t closed,
                                   const SerializedHistory::SerializeRange& range,
                                   std::string_view tail);

// A generation for a context whose items were just replaced: never 0, never
// the same twice in the process. Thread-safe.
uint64_t NewHistoryGeneration();

}  // namespace raw::providers
