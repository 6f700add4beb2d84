#include "daemon/store/session_store.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/time.h"
#include "daemon/events/event_codec.h"
#include "daemon/store/event_queries.h"
#include "daemon/store/migrator.h"
#include "daemon/store/page_token.h"
#include "daemon/store/session_row.h"
#include "daemon/store/sqlite/db.h"
#include "daemon/store/sqlite/statement.h"
#include "daemon/store/sqlite/transaction.h"

namespace raw::store {
namespace {

int ClampLimit(int limit) {
  if (limit <= 0) return kDefaultPageSize;
  return std::min(limit, kMaxPageSize);
}

// SQLite integers are signed; seqs never come near 2^63, but a forged cursor
// may, and must not wrap around.
int64_t SeqToSql(uint64_t seq) {
  return static_cast<int64_t>(
      std::min<uint64_t>(seq, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}

}  // namespace

absl::StatusOr<std::unique_ptr<SessionStore>> SessionStore::Open(const std::string& path) {
  DatabaseOptions options;
  options.max_user_version = LatestSchemaVersion();
  ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, options));
  RETURN_IF_ERROR(Migrate(*db));
  return std::unique_ptr<SessionStore>(new SessionStore(std::move(db)));
}

SessionStore::SessionStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

SessionStore::~SessionStore() = default;

absl::Status SessionStore::CreateSession(const SessionRecord& record) {
  if (record.id.empty()) return absl::InvalidArgumentError("session id is empty");
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Statement insert,
                   db_->Prepare("INSERT INTO sessions (id, agent, cwd, created_at, "
                                "last_activity_at, title) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  insert.BindString(0, record.id);
  insert.BindString(1, record.agent);
  insert.BindString(2, record.cwd);
  insert.BindInt64(3, record.created_at_unix_ms);
  insert.BindInt64(4, record.last_activity_unix_ms != 0 ? record.last_activity_unix_ms
                                                        : record.created_at_unix_ms);
  insert.BindString(5, record.title);
  absl::Status status = insert.Run();
  if (absl::IsAlreadyExists(status)) {
    return absl::AlreadyExistsError(absl::StrCat("session ", record.id, " already exists"));
  }
  return status;
}

absl::Status SessionStore::DeleteSession(const std::string& id) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Statement remove, db_->Prepare("DELETE FROM sessions WHERE id = ?1"));
  remove.BindString(0, id);
  RETURN_IF_ERROR(remove.Run());
  if (db_->ChangedRows() == 0) {
    return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionRecord> SessionStore::GetSession(const std::string& id) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare(absl::StrCat(kSelectSessionRow, "WHERE id = ?1")));
  select.BindString(0, id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  return ReadSessionRow(select);
}

absl::StatusOr<SessionPage> SessionStore::ListSessions(int page_size,
                                                       const std::string& page_token) {
  const int limit = ClampLimit(page_size);
  std::optional<SessionListPosition> after;
  if (!page_token.empty()) {
    ASSIGN_OR_RETURN(after, DecodeSessionPageToken(page_token));
  }
  absl::MutexLock lock(&mu_);
  // Keyset paging over the sessions_by_activity index: a page starts
  // strictly after the last entry of the previous one, so sessions created
  // meanwhile (which sort first) never shift or repeat later pages.
  constexpr char kOrder[] = "ORDER BY last_activity_at DESC, id DESC LIMIT ?3";
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(after ? absl::StrCat(kSelectSessionRow,
                                        "WHERE (last_activity_at, id) < (?1, ?2) ", kOrder)
                         : absl::StrCat(kSelectSessionRow, kOrder)));
  if (after) {
    select.BindInt64(0, after->last_activity_unix_ms);
    select.BindString(1, after->id);
  }
  select.BindInt(2, limit + 1);  // one more tells whether a next page exists
  SessionPage page;
  while (true) {
    ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    if (static_cast<int>(page.sessions.size()) == limit) {
      const SessionRecord& last = page.sessions.back();
      page.next_page_token = EncodeSessionPageToken({last.last_activity_unix_ms, last.id});
      break;
    }
    page.sessions.push_back(ReadSessionRow(select));
  }
  return page;
}

absl::Status SessionStore::Commit(const std::string& session_id, const CommitBatch& batch) {
  absl::MutexLock lock(&mu_);
  Transaction txn(*db_);
  RETURN_IF_ERROR(txn.Begin());
  // Any error below returns before Commit(), and txn rolls everything back.
  RETURN_IF_ERROR(CommitLocked(session_id, batch));
  return txn.Commit();
}

absl::Status SessionStore::CommitLocked(const std::string& session_id, const CommitBatch& batch) {
  ASSIGN_OR_RETURN(Statement select, db_->Prepare("SELECT last_seq FROM sessions WHERE id = ?1"));
  select.BindString(0, session_id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " not found"));
  const uint64_t last_seq = static_cast<uint64_t>(select.ColumnInt64(0));

  uint64_t expected = last_seq;
  int64_t newest_time = 0;
  for (const events::SessionEvent& event : batch.events) {
    const char* kind = events::KindName(event.payload);
    if (!events::IsDurable(event.payload)) {
      return absl::InternalError(absl::StrCat("commit to session ", session_id, ": ", kind,
                                              " events are live only and never stored"));
    }
    if (!event.session_id.empty() && event.session_id != session_id) {
      return absl::InternalError(absl::StrCat("commit to session ", session_id,
                                              ": event belongs to session ", event.session_id));
    }
    // Live-only events (deltas) use seqs too but are never stored, so a
    // batch may start after a gap; within a batch seqs are consecutive.
    if (&event == &batch.events.front() ? event.seq <= expected : event.seq != expected + 1) {
      return absl::InternalError(absl::StrCat(
          "commit to session ", session_id, ": event seq ", event.seq, " where ",
          &event == &batch.events.front() ? absl::StrCat("more than ", expected)
                                          : absl::StrCat(expected + 1),
          " was expected (last stored seq ", last_seq, ")"));
    }
    expected = event.seq;
    ASSIGN_OR_RETURN(Statement insert, db_->Prepare(kInsertEventSql));
    insert.BindString(0, session_id);
    insert.BindInt64(1, SeqToSql(event.seq));
    insert.BindString(2, event.turn_id);
    insert.BindString(3, kind);
    insert.BindString(4, events::EncodePayload(event.payload));
    insert.BindInt64(5, event.time_unix_ms);
    RETURN_IF_ERROR(insert.Run());
    newest_time = std::max(newest_time, event.time_unix_ms);
  }
  if (!batch.events.empty()) {
    ASSIGN_OR_RETURN(Statement update,
                     db_->Prepare("UPDATE sessions SET last_seq = ?1 WHERE id = ?2"));
    update.BindInt64(0, SeqToSql(expected));
    update.BindString(1, session_id);
    RETURN_IF_ERROR(update.Run());
  }

  if (batch.replace_context) {
    ASSIGN_OR_RETURN(Statement clear,
                     db_->Prepare("DELETE FROM context_items WHERE session_id = ?1"));
    clear.BindString(0, session_id);
    RETURN_IF_ERROR(clear.Run());
  }
  std::vector<const events::ContextItem*> appends;
  if (batch.replace_context) {
    for (const auto& item : *batch.replace_context) appends.push_back(&item);
  }
  for (const auto& item : batch.context_appends) appends.push_back(&item);
  if (!appends.empty()) {
    ASSIGN_OR_RETURN(Statement next, db_->Prepare("SELECT COALESCE(MAX(position) + 1, 0) FROM "
                                                  "context_items WHERE session_id = ?1"));
    next.BindString(0, session_id);
    RETURN_IF_ERROR(next.Step().status());
    int64_t position = next.ColumnInt64(0);
    for (const events::ContextItem* item : appends) {
      ASSIGN_OR_RETURN(Statement insert,
                       db_->Prepare("INSERT INTO context_items (session_id, position, payload) "
                                    "VALUES (?1, ?2, ?3)"));
      insert.BindString(0, session_id);
      insert.BindInt64(1, position++);
      insert.BindString(2, events::EncodeContextItem(*item));
      RETURN_IF_ERROR(insert.Run());
    }
  }

  if (batch.usage) {
    ASSIGN_OR_RETURN(Statement update, db_->Prepare(kAddUsageSql));
    BindAddUsage(update, session_id, *batch.usage);
    RETURN_IF_ERROR(update.Run());
  }
  if (batch.context_meter || batch.runtime_hash || batch.compaction_accepted) {
    // A NULL parameter keeps the stored value.
    ASSIGN_OR_RETURN(Statement update,
                     db_->Prepare("UPDATE sessions SET "
                                  "context_meter = COALESCE(?1, context_meter), "
                                  "runtime_hash = COALESCE(?2, runtime_hash), "
                                  "compactions = compactions + ?3 WHERE id = ?4"));
    if (batch.context_meter) {
      update.BindString(0, *batch.context_meter);
    } else {
      update.BindNull(0);
    }
    if (batch.runtime_hash) {
      update.BindString(1, *batch.runtime_hash);
    } else {
      update.BindNull(1);
    }
    update.BindInt(2, batch.compaction_accepted ? 1 : 0);
    update.BindString(3, session_id);
    RETURN_IF_ERROR(update.Run());
  }
  if (batch.conversation_activity) {
    ASSIGN_OR_RETURN(Statement update,
                     db_->Prepare("UPDATE sessions SET last_activity_at = "
                                  "MAX(last_activity_at, ?1) WHERE id = ?2"));
    update.BindInt64(0, newest_time != 0 ? newest_time : SystemClock().NowUnixMs());
    update.BindString(1, session_id);
    RETURN_IF_ERROR(update.Run());
  }
  if (!batch.title.empty()) {
    ASSIGN_OR_RETURN(Statement update,
                     db_->Prepare("UPDATE sessions SET title = ?1 WHERE id = ?2 AND title = ''"));
    update.BindString(0, batch.title);
    update.BindString(1, session_id);
    RETURN_IF_ERROR(update.Run());
  }
  return absl::OkStatus();
}

absl::Status SessionStore::CheckSessionLocked(const std::string& session_id) {
  ASSIGN_OR_RETURN(Statement select, db_->Prepare("SELECT 1 FROM sessions WHERE id = ?1"));
  select.BindString(0, session_id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " not found"));
  return absl::OkStatus();
}

absl::StatusOr<SessionStore::EventRows> SessionStore::QueryEventsLocked(
    const std::string& session_id, const char* sql, uint64_t seq, int limit) {
  ASSIGN_OR_RETURN(Statement select, db_->Prepare(sql));
  select.BindString(0, session_id);
  select.BindInt64(1, SeqToSql(seq));
  select.BindInt(2, limit + 1);  // one row more says whether more follow
  EventRows rows;
  while (true) {
    ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    if (static_cast<int>(rows.events.size()) == limit) {
      rows.more = true;  // not decoded: a corrupt row there belongs to the next page
      break;
    }
    events::SessionEvent event;
    event.session_id = session_id;
    event.seq = static_cast<uint64_t>(select.ColumnInt64(0));
    event.turn_id = select.ColumnString(1);
    absl::StatusOr<events::EventPayload> payload =
        events::DecodePayload(select.ColumnString(2), select.ColumnString(3));
    if (!payload.ok()) {
      return absl::DataLossError(absl::StrCat("session ", session_id, ", event seq ", event.seq,
                                              ": stored payload does not decode: ",
                                              payload.status().message()));
    }
    event.payload = *std::move(payload);
    event.time_unix_ms = select.ColumnInt64(4);
    rows.events.push_back(std::move(event));
  }
  return rows;
}

absl::StatusOr<std::vector<events::SessionEvent>> SessionStore::ReadEvents(
    const std::string& session_id, uint64_t after_seq, int limit) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckSessionLocked(session_id));
  ASSIGN_OR_RETURN(EventRows rows,
                   QueryEventsLocked(session_id, kEventsAfterSql, after_seq, ClampLimit(limit)));
  return std::move(rows.events);
}

absl::StatusOr<HistoryPage> SessionStore::GetHistory(const std::string& session_id,
                                                     const std::string& cursor, int limit,
                                                     HistoryDirection direction) {
  const bool forward = direction == HistoryDirection::kForward;
  uint64_t position = forward ? 0 : std::numeric_limits<uint64_t>::max();
  if (!cursor.empty()) {
    ASSIGN_OR_RETURN(position, DecodeHistoryCursor(session_id, cursor));
  }
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckSessionLocked(session_id));
  ASSIGN_OR_RETURN(EventRows rows,
                   QueryEventsLocked(session_id, forward ? kEventsAfterSql : kEventsBeforeSql,
                                     position, ClampLimit(limit)));
  HistoryPage page;
  page.events = std::move(rows.events);
  if (rows.more) page.next_cursor = EncodeHistoryCursor(session_id, page.events.back().seq);
  return page;
}

absl::StatusOr<std::vector<events::ContextItem>> SessionStore::LoadContext(
    const std::string& session_id) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckSessionLocked(session_id));
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare("SELECT position, payload FROM context_items "
                                "WHERE session_id = ?1 ORDER BY position ASC"));
  select.BindString(0, session_id);
  std::vector<events::ContextItem> items;
  while (true) {
    ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    absl::StatusOr<events::ContextItem> item = events::DecodeContextItem(select.ColumnString(1));
    if (!item.ok()) {
      return absl::DataLossError(absl::StrCat("session ", session_id, ", context item at position ",
                                              select.ColumnInt64(0), " does not decode: ",
                                              item.status().message()));
    }
    items.push_back(*std::move(item));
  }
  return items;
}

absl::StatusOr<uint64_t> SessionStore::FirstSeqOfTurn(const std::string& session_id,
                                                      const std::string& turn_id) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(Statement select, db_->Prepare(kFirstSeqOfTurnSql));
  select.BindString(0, session_id);
  select.BindString(1, turn_id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) {
    return absl::NotFoundError(absl::StrCat("session ", session_id, " has no stored event of turn ",
                                            turn_id));
  }
  return static_cast<uint64_t>(select.ColumnInt64(0));
}

absl::StatusOr<std::vector<std::string>> SessionStore::PurgeExpired(int64_t cutoff_unix_ms) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> removed;
  {
    Transaction txn(*db_);
    RETURN_IF_ERROR(txn.Begin());
    ASSIGN_OR_RETURN(Statement select,
                     db_->Prepare("SELECT id FROM sessions WHERE last_activity_at < ?1 "
                                  "ORDER BY last_activity_at ASC, id ASC"));
    select.BindInt64(0, cutoff_unix_ms);
    while (true) {
      ASSIGN_OR_RETURN(bool has_row, select.Step());
      if (!has_row) break;
      removed.push_back(select.ColumnString(0));
    }
    if (removed.empty()) return removed;
    // History and context go with each session (ON DELETE CASCADE).
    ASSIGN_OR_RETURN(Statement remove,
                     db_->Prepare("DELETE FROM sessions WHERE last_activity_at < ?1"));
    remove.BindInt64(0, cutoff_unix_ms);
    RETURN_IF_ERROR(remove.Run());
    RETURN_IF_ERROR(txn.Commit());
  }
  RETURN_IF_ERROR(db_->ReclaimSpace());
  return removed;
}

absl::StatusOr<bool> SessionStore::NoteOnce(const std::string& key) {
  if (key.empty()) return absl::InvalidArgumentError("NoteOnce: the key is empty");
  absl::MutexLock lock(&mu_);
  // The value records when the key was first noted (Unix ms).
  ASSIGN_OR_RETURN(Statement insert,
                   db_->Prepare("INSERT INTO meta (key, value) VALUES (?1, ?2) "
                                "ON CONFLICT (key) DO NOTHING"));
  insert.BindString(0, key);
  insert.BindString(1, absl::StrCat(SystemClock().NowUnixMs()));
  RETURN_IF_ERROR(insert.Run());
  return db_->ChangedRows() == 1;
}

}  // namespace raw::store
