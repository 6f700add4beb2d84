// SessionStore: removing sessions (DeleteSession, PurgeExpired) without
// holding the writer for more than one short transaction at a time. See
// session_store.h for the contract.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "daemon/store/sqlite/statement.h"
#include "daemon/store/wal_checkpointer.h"

namespace raw::store {
namespace {

// Deletes up to `limit` rows of the session from `table`, whose primary key
// is (session_id, `key`); returns how many.
absl::StatusOr<int64_t> DeleteSome(Database& db, const char* table, const char* key,
                                   const std::string& session_id, int limit) {
  // The inner SELECT walks the table's primary key from the session's first
  // row, so each batch costs its own rows, not the session's size. (The key
  // rather than the rowid: context_items has no rowid.)
  ASSIGN_OR_RETURN(Statement remove,
                   db.Prepare(absl::StrCat("DELETE FROM ", table, " WHERE session_id = ?1 AND ",
                                           key, " IN (SELECT ", key, " FROM ", table,
                                           " WHERE session_id = ?1 LIMIT ?2)")));
  remove.BindString(0, session_id);
  remove.BindInt(1, limit);
  RETURN_IF_ERROR(remove.Run());
  return db.ChangedRows();
}

}  // namespace

absl::Status SessionStore::DeleteSession(const std::string& id, bool* hidden) {
  bool marked = false;
  absl::Status written = Write(StoreStep::kRemovalWriting, id, [&](Database& db) -> absl::Status {
    ASSIGN_OR_RETURN(Statement mark,
                     db.Prepare("UPDATE sessions SET removing = 1 WHERE id = ?1 AND removing = 0"));
    mark.BindString(0, id);
    RETURN_IF_ERROR(mark.Run());
    marked = db.ChangedRows() == 1;
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(written);
  if (!marked) return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  if (hidden != nullptr) *hidden = true;
  absl::Status removed = RemoveMarked(id);
  if (removed.ok()) return removed;
  return absl::Status(
      removed.code(),
      absl::StrCat("session ", id,
                   " is removed, but deleting its stored rows failed: ", removed.message(),
                   "; the rest are deleted when the daemon next starts or "
                   "checks for expired sessions"));
}

absl::StatusOr<RemovalReport> SessionStore::FinishRemovals() {
  // No session was active before the earliest time: this marks nothing and
  // finishes what is marked already.
  return PurgeExpired(std::numeric_limits<int64_t>::min());
}

absl::StatusOr<RemovalReport> SessionStore::PurgeExpired(int64_t cutoff_unix_ms) {
  std::vector<std::string> marked;
  // One transaction decides: a commit that renews a session either comes
  // before it (and the session stays) or finds the session gone.
  absl::Status written = Write(StoreStep::kRemovalWriting, "", [&](Database& db) -> absl::Status {
    ASSIGN_OR_RETURN(Statement mark, db.Prepare("UPDATE sessions SET removing = 1 "
                                                "WHERE last_activity_at < ?1 AND removing = 0"));
    mark.BindInt64(0, cutoff_unix_ms);
    RETURN_IF_ERROR(mark.Run());
    ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT id FROM sessions WHERE removing = 1 "
                                                  "ORDER BY last_activity_at ASC, id ASC"));
    while (true) {
      ASSIGN_OR_RETURN(bool has_row, select.Step());
      if (!has_row) break;
      marked.push_back(select.ColumnString(0));
    }
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(written);
  RemovalReport report;
  if (marked.empty()) return report;
  // A session that cannot be removed (a damaged page in its rows) stays
  // marked and is tried again next time; it must not keep the others, nor
  // their space, in the file.
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kOk;
  for (const std::string& id : marked) {
    absl::Status removed = RemoveMarked(id);
    if (removed.ok()) {
      report.removed.push_back(id);
      continue;
    }
    report.unfinished.push_back(id);
    failures.push_back(
        absl::StrCat("session ", id, " stays hidden with rows left (", removed.message(), ")"));
    if (code == absl::StatusCode::kOk) code = removed.code();
  }
  if (absl::Status reclaimed = ReclaimSpaceInSteps(); !reclaimed.ok()) {
    failures.push_back(absl::StrCat("giving free pages back failed (", reclaimed.message(), ")"));
    if (code == absl::StatusCode::kOk) code = reclaimed.code();
  }
  if (!failures.empty()) {
    report.status = absl::Status(
        code, absl::StrCat("removing sessions: ", absl::StrJoin(failures, "; "),
                           report.unfinished.empty() ? "" : "; the next purge tries again"));
  }
  return report;
}

absl::Status SessionStore::RemoveMarked(const std::string& session_id) {
  const int limit = std::max(options_.removal_batch_rows, 1);
  bool done = false;
  while (!done) {
    absl::Status written =
        Write(StoreStep::kRemovalWriting, session_id, [&](Database& db) -> absl::Status {
          ASSIGN_OR_RETURN(int64_t events, DeleteSome(db, "events", "seq", session_id, limit));
          ASSIGN_OR_RETURN(int64_t items, DeleteSome(db, "context_items", "position", session_id, limit));
          if (events == limit || items == limit) return absl::OkStatus();
          // Nothing of the session is left but its row.
          ASSIGN_OR_RETURN(Statement remove,
                           db.Prepare("DELETE FROM sessions WHERE id = ?1 AND removing = 1"));
          remove.BindString(0, session_id);
          RETURN_IF_ERROR(remove.Run());
          done = true;
          return absl::OkStatus();
        });
    RETURN_IF_ERROR(written);
    Hook(StoreStep::kRemovalBatchDone, session_id);
  }
  return absl::OkStatus();
}

absl::Status SessionStore::ReclaimSpaceInSteps() {
  if (incremental_vacuum_) {
    const std::string step =
        absl::StrCat("PRAGMA incremental_vacuum(", std::max(options_.vacuum_step_pages, 1), ")");
    bool done = false;
    while (!done) {
      absl::Status written =
          Write(StoreStep::kRemovalWriting, "", [&](Database& db) -> absl::Status {
            RETURN_IF_ERROR(db.Exec(step));
            ASSIGN_OR_RETURN(int64_t free_pages, db.QueryInt64("PRAGMA freelist_count"));
            done = free_pages == 0;
            return absl::OkStatus();
          });
      RETURN_IF_ERROR(written);
    }
  }
  // TRUNCATE shrinks the WAL to nothing, but would wait for readers (with
  // the writer held) up to the busy timeout; with no wait it does only what
  // it can at once, and a later checkpoint does the rest.
  // A checkpoint of the checkpointer's running at the same moment would
  // make this one give up at once: it waits for that one and holds off the
  // next.
  std::optional<WalCheckpointer::Hold> hold;
  if (checkpointer_ != nullptr) hold.emplace(*checkpointer_);
  absl::MutexLock lock(&write_mu_);
  const int busy_timeout_ms = writer_->busy_timeout_ms();
  writer_->SetBusyTimeout(0);
  absl::Status checkpoint = writer_->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  writer_->SetBusyTimeout(busy_timeout_ms);
  return checkpoint;
}

}  // namespace raw::store
