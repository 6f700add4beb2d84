#include "tests/support/seeded_session.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "daemon/context/context_meter.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_store.h"

namespace raw::e2e {

absl::Status SeedSession(const TestDaemon& daemon, const std::string& id, const std::string& agent,
                         int items, size_t filler_bytes) {
  std::filesystem::create_directories(daemon.state_dir());
  ASSIGN_OR_RETURN(std::unique_ptr<store::SessionStore> store,
                   store::SessionStore::Open(
                       absl::StrCat(daemon.state_dir(), "/", store::DatabaseFileName())));
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  store::SessionRecord record;
  record.id = id;
  record.agent = agent;
  record.cwd = daemon.workdir();
  record.created_at_unix_ms = now_ms;
  record.last_activity_unix_ms = now_ms;
  RETURN_IF_ERROR(store->CreateSession(record));
  store::CommitBatch batch;
  const std::string filler(filler_bytes, 'x');
  uint64_t seq = 0;
  auto add = [&](const std::string& turn, events::EventPayload payload) {
    events::SessionEvent e;
    e.session_id = id;
    e.seq = ++seq;
    e.turn_id = turn;
    e.time_unix_ms = now_ms;
    e.payload = std::move(payload);
    batch.events.push_back(std::move(e));
  };
  for (int i = 1; i <= items; ++i) {
    const std::string turn = absl::StrCat("turn_", (i + 1) / 2);
    const std::string text = absl::StrCat(i % 2 == 1 ? "question " : "answer ", i, " ", filler);
    if (i % 2 == 1) {
      add(turn, events::TurnStarted{text});
      add(turn, events::UserMessage{text});
      batch.context_appends.push_back(events::UserText{text, events::UserTextKind::kPrompt, turn});
    } else {
      add(turn, events::AssistantMessage{text, "", 1});
      add(turn, events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, std::nullopt});
      batch.context_appends.push_back(events::AssistantTurn{text, "", {}, {}});
    }
  }
  // The context meter's state, as a daemon stores it at each turn's end.
  context::ContextMeter meter;
  meter.Reset(0, batch.context_appends);
  batch.context_meter = meter.Serialize();
  return store->Commit(id, batch);
}

}  // namespace raw::e2e
