// SessionContext: a loaded session's model context and its size meter.
//
// Owned by the SessionRunner and touched only by the operation that runs
// (a turn, a compaction, a clear), one at a time. Whoever appends items
// does not have to tell the meter: SyncMeter() catches up with what was
// appended since it last looked, at O(new items) — never O(history).
// Rewrites (compaction, /clear) call Rewrite(), which re-estimates once and
// starts a new generation; so does Load(). Nothing else may change or remove
// an item.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/context/context_meter.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"
#include "daemon/providers/provider_factory.h"
#include "daemon/providers/serialized_history.h"

namespace raw::loop {

struct SessionContext {
  std::vector<events::ContextItem> items;
  context::ContextMeter meter;

  void SyncMeter() {
    if (meter.items() > items.size()) {
      meter.Reset(runtime_tokens, items);
      return;
    }
    for (size_t i = meter.items(); i < items.size(); ++i) meter.Append(items[i]);
  }
  void SetRuntime(int64_t tokens) {
    runtime_tokens = tokens;
    meter.SetRuntime(tokens);
  }
  // The model the next request goes to: which reasoning it is sent back
  // (a change re-estimates the context once).
  void SetModel(const config::ModelConfig& model) {
    meter.SetReasoningRule(providers::ReasoningRuleFor(model), items);
  }
  void Rewrite(std::vector<events::ContextItem> new_items) {
    items = std::move(new_items);
    generation = providers::NewHistoryGeneration();
    meter.Reset(runtime_tokens, items);
    refused_as_too_large = false;
  }
  // Loading puts in items that were never serialized here.
  void Load(std::vector<events::ContextItem> loaded) {
    items = std::move(loaded);
    generation = providers::NewHistoryGeneration();
  }

  // Where the next check for calls without their results may begin: every
  // call of the items before it is answered (a turn's start checked them,
  // and items are only appended). A new generation starts over at 0.
  size_t CallsCheckedUpTo() const {
    return calls_checked_generation_ == generation ? std::min(calls_checked_, items.size()) : 0;
  }
  // Every call of `items` is answered now.
  void MarkCallsChecked() {
    calls_checked_ = items.size();
    calls_checked_generation_ = generation;
  }

  int64_t runtime_tokens = 0;  // system prompt + tool definitions, estimated
  // The provider refused the last request as larger than the model's
  // context (ErrorKind::kContextOverflow), whatever the meter says: the
  // estimate ran under what the model counts (dense text, another
  // tokenizer). The next request is then taken as over the automatic
  // compaction's trigger, so the session compacts instead of sending the
  // same refused request again and again. Cleared once the context is
  // rewritten (a compaction, /clear) or a response comes back. In memory
  // only.
  bool refused_as_too_large = false;
  // Changes whenever `items` is replaced rather than appended to (Rewrite,
  // Load); the request builders' serialized history is valid for one
  // generation (providers/serialized_history.h).
  uint64_t generation = providers::NewHistoryGeneration();
  providers::SerializedHistory serialized;

 private:
  size_t calls_checked_ = 0;
  uint64_t calls_checked_generation_ = 0;
};

}  // namespace raw::loop
