// Turns written straight into rawd's database before it starts, for the
// browser tests that need long histories or many sessions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/events/session_event.h"
#include "daemon/store/session_store.h"

namespace raw::e2e {

// Appends to `batch` the events of `turns` completed turns of session `id`
// (seqs from 1, all at `at_ms`): turn k asks "question number k" and is
// answered `answer(k)`, with the turn boundaries a real history has.
inline void AppendSeededTurns(const std::string& id, int turns, int64_t at_ms,
                              const std::function<std::string(int)>& answer,
                              store::CommitBatch& batch) {
  uint64_t seq = 0;
  for (int k = 1; k <= turns; ++k) {
    const std::string question = absl::StrCat("question number ", k);
    for (events::EventPayload payload :
         {events::EventPayload(events::TurnStarted{question}),
          events::EventPayload(events::UserMessage{question}),
          events::EventPayload(events::AssistantMessage{answer(k), "", 1}),
          events::EventPayload(
              events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, std::nullopt})}) {
      events::SessionEvent e;
      e.session_id = id;
      e.seq = ++seq;
      e.turn_id = absl::StrCat("turn_", k);
      e.time_unix_ms = at_ms;
      e.payload = std::move(payload);
      batch.events.push_back(std::move(e));
    }
  }
}

}  // namespace raw::e2e
