#include "tests/daemon/loop/stored_rows.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/store/sqlite/db.h"

namespace raw::loop::testing {
namespace {

absl::StatusOr<std::string> ReplacePayload(const std::string& path, const char* table,
                                           const char* key, const std::string& session_id,
                                           int64_t row, const std::string& payload) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Database> db, store::Database::Open(path));
  ASSIGN_OR_RETURN(store::Statement select,
                   db->Prepare(absl::StrCat("SELECT payload FROM ", table,
                                            " WHERE session_id = ?1 AND ", key, " = ?2")));
  select.BindString(0, session_id);
  select.BindInt64(1, row);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) {
    return absl::NotFoundError(absl::StrCat("no ", table, " row ", session_id, " ", row));
  }
  std::string old = select.ColumnString(0);
  select.Reset();
  ASSIGN_OR_RETURN(store::Statement update, db->Prepare(absl::StrCat("UPDATE ", table,
                                                                     " SET payload = ?3 WHERE "
                                                                     "session_id = ?1 AND ",
                                                                     key, " = ?2")));
  update.BindString(0, session_id);
  update.BindInt64(1, row);
  update.BindString(2, payload);
  RETURN_IF_ERROR(update.Run());
  return old;
}

// Shared with the wakeup callback, which may outlive the call.
struct Wakeups {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
};

}  // namespace

absl::Status ExecSql(const std::string& path, const std::string& sql) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Database> db, store::Database::Open(path));
  return db->Exec(sql);
}

absl::StatusOr<std::map<std::string, std::string>> AllStoredRows(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Database> db, store::Database::Open(path));
  std::map<std::string, std::string> rows;
  {
    ASSIGN_OR_RETURN(store::Statement select,
                     db->Prepare("SELECT session_id, seq, turn_id, kind, payload, created_at "
                                 "FROM events"));
    while (true) {
      ASSIGN_OR_RETURN(bool has_row, select.Step());
      if (!has_row) break;
      rows[absl::StrCat("event ", select.ColumnString(0), " ", select.ColumnInt64(1))] =
          absl::StrCat(select.ColumnString(2), "|", select.ColumnString(3), "|",
                       select.ColumnString(4), "|", select.ColumnInt64(5));
    }
  }
  ASSIGN_OR_RETURN(store::Statement select,
                   db->Prepare("SELECT session_id, position, payload FROM context_items"));
  while (true) {
    ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    rows[absl::StrCat("context ", select.ColumnString(0), " ", select.ColumnInt64(1))] =
        select.ColumnString(2);
  }
  return rows;
}

absl::StatusOr<std::string> ReplaceEventPayload(const std::string& path,
                                                const std::string& session_id, uint64_t seq,
                                                const std::string& payload) {
  return ReplacePayload(path, "events", "seq", session_id, static_cast<int64_t>(seq), payload);
}

absl::StatusOr<std::string> ReplaceContextPayload(const std::string& path,
                                                  const std::string& session_id, int64_t position,
                                                  const std::string& payload) {
  return ReplacePayload(path, "context_items", "position", session_id, position, payload);
}

absl::StatusOr<std::vector<events::SessionEvent>> ReadUntilTurnEnds(Subscription& sub,
                                                                    const std::string& turn_id) {
  return ReadUntil(
      sub,
      [&turn_id](const events::SessionEvent& e) {
        return e.turn_id == turn_id && std::holds_alternative<events::TurnEnded>(e.payload);
      },
      absl::StrCat("turn ", turn_id, " did not end"));
}

absl::StatusOr<std::vector<events::SessionEvent>> ReadUntil(
    Subscription& sub, const std::function<bool(const events::SessionEvent&)>& last,
    const std::string& timeout_message) {
  auto wakeups = std::make_shared<Wakeups>();
  sub.SetWakeup([wakeups] {
    std::lock_guard<std::mutex> lock(wakeups->mu);
    wakeups->ready = true;
    wakeups->cv.notify_all();
  });
  std::vector<events::SessionEvent> delivered;
  bool ended = false;
  while (!ended) {
    ASSIGN_OR_RETURN(std::optional<events::SessionEvent> next, sub.TryNext());
    if (next.has_value()) {
      ended = last(*next);
      delivered.push_back(*std::move(next));
      continue;
    }
    std::unique_lock<std::mutex> lock(wakeups->mu);
    if (!wakeups->cv.wait_for(lock, std::chrono::seconds(20), [&] { return wakeups->ready; })) {
      return absl::DeadlineExceededError(timeout_message);
    }
    wakeups->ready = false;
  }
  return delivered;
}

absl::StatusOr<std::vector<events::SessionEvent>> ReadReady(Subscription& sub) {
  std::vector<events::SessionEvent> delivered;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<events::SessionEvent> next, sub.TryNext());
    if (!next.has_value()) return delivered;
    delivered.push_back(*std::move(next));
  }
}

}  // namespace raw::loop::testing
