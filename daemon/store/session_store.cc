#include "daemon/store/session_store.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/failpoint.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/time.h"
#include "daemon/store/commit_writer.h"
#include "daemon/store/event_queries.h"
#include "daemon/store/migrator.h"
#include "daemon/store/page_token.h"
#include "daemon/store/read_pool.h"
#include "daemon/store/seq_repair.h"
#include "daemon/store/session_row.h"
#include "daemon/store/sqlite/db.h"
#include "daemon/store/sqlite/statement.h"
#include "daemon/store/sqlite/transaction.h"
#include "daemon/store/stored_rows.h"
#include "daemon/store/wal_checkpointer.h"

namespace raw::store {
namespace {

int ClampLimit(int limit) {
  if (limit <= 0) return kDefaultPageSize;
  return std::min(limit, kMaxPageSize);
}

// kNotFound unless the session exists and is not being removed.
absl::Status CheckSession(Database& db, const std::string& session_id) {
  ASSIGN_OR_RETURN(Statement select,
                   db.Prepare("SELECT 1 FROM sessions WHERE id = ?1 AND removing = 0"));
  select.BindString(0, session_id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " not found"));
  return absl::OkStatus();
}

// How many items the model context of `session_id` holds when its positions
// run from 0 (as every write leaves them): a capacity hint only, capped so a
// damaged position cannot ask for a huge allocation.
absl::StatusOr<size_t> ContextSizeHint(Database& db, const std::string& session_id) {
  constexpr int64_t kMaxHint = int64_t{1} << 20;
  ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT COALESCE(MAX(position) + 1, 0) FROM "
                                                "context_items WHERE session_id = ?1"));
  select.BindString(0, session_id);
  RETURN_IF_ERROR(select.Step().status());
  return static_cast<size_t>(std::clamp<int64_t>(select.ColumnInt64(0), 0, kMaxHint));
}

// Only a file in WAL mode can be read beside the writer; an in-memory
// database reports "memory" and runs on the writer alone.
absl::StatusOr<bool> UsesWal(Database& db) {
  ASSIGN_OR_RETURN(Statement journal, db.Prepare("PRAGMA journal_mode"));
  ASSIGN_OR_RETURN(bool has_row, journal.Step());
  return has_row && absl::AsciiStrToLower(journal.ColumnString(0)) == "wal";
}

// Gives a file made without auto-vacuum incremental auto-vacuum: the mode
// of an existing file changes only through a VACUUM, which rewrites it. Done
// once, at open, so that no purge ever has to rewrite the file while the
// daemon serves. A failure leaves the file as it was and is only logged:
// the store works the same, purges just keep freed pages for reuse.
absl::StatusOr<AutoVacuum> EnsureIncrementalVacuum(Database& db) {
  ASSIGN_OR_RETURN(AutoVacuum mode, db.GetAutoVacuum());
  if (mode != AutoVacuum::kNone) return mode;
  absl::Status converted = db.Exec("PRAGMA auto_vacuum = INCREMENTAL; VACUUM");
  if (!converted.ok()) {
    RAW_LOG(Warning) << "could not switch " << db.path()
                     << " to incremental auto-vacuum (expired sessions will leave free pages "
                        "in the file): "
                     << converted.message();
    return AutoVacuum::kNone;
  }
  return db.GetAutoVacuum();
}

// Writes the WAL's first frame now, at open. SQLite syncs the directory at
// the first sync of a WAL file it created (so that the new file survives a
// crash), and the file is new whenever the daemon starts, since the last
// connection's close removed it: a few milliseconds that would otherwise
// fall on the daemon's first commit, often inside a turn. Writing the schema
// version back unchanged changes nothing else. A failure (a read-only file)
// is left to the first real write to report.
void PrimeWal(Database& db) {
  absl::Status primed = [&db]() -> absl::Status {
    ASSIGN_OR_RETURN(int64_t version, db.QueryInt64("PRAGMA user_version"));
    Transaction txn(db);
    RETURN_IF_ERROR(txn.Begin());
    RETURN_IF_ERROR(db.Exec(absl::StrCat("PRAGMA user_version = ", version)));
    return txn.Commit();
  }();
  if (!primed.ok()) {
    RAW_LOG(Info) << "could not write to " << db.path() << " at open: " << primed.message();
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SessionStore>> SessionStore::Open(const std::string& path) {
  return Open(path, StoreOptions{});
}

absl::StatusOr<std::unique_ptr<SessionStore>> SessionStore::Open(const std::string& path,
                                                                 StoreOptions options) {
  DatabaseOptions db_options;
  db_options.max_user_version = LatestSchemaVersion();
  db_options.cache_kib = options.write_cache_kib;
  ASSIGN_OR_RETURN(std::unique_ptr<Database> writer, Database::Open(path, db_options));
  RETURN_IF_ERROR(Migrate(*writer));
  // Before any session is read: a row its history contradicts would number
  // new events wrongly. A failure (a read-only file) leaves the rows as
  // they are; that session's commits then fail, naming the seq.
  if (absl::StatusOr<int> repaired = RepairSeqCounters(*writer); !repaired.ok()) {
    RAW_LOG(Warning) << "could not check the sequence counters of the sessions in "
                     << writer->path() << ": " << repaired.status().message();
  }
  ASSIGN_OR_RETURN(const bool wal, UsesWal(*writer));
  AutoVacuum vacuum = AutoVacuum::kNone;
  if (wal) {
    ASSIGN_OR_RETURN(vacuum, EnsureIncrementalVacuum(*writer));
    PrimeWal(*writer);
  }
  std::unique_ptr<ReadPool> readers;
  std::unique_ptr<WalCheckpointer> checkpointer;
  if (wal) {
    ASSIGN_OR_RETURN(readers, ReadPool::Open(path, std::max(options.read_connections, 1),
                                             writer->busy_timeout_ms(), options.read_cache_kib));
    ASSIGN_OR_RETURN(checkpointer, WalCheckpointer::Start(path, writer->busy_timeout_ms()));
    writer->OnWalCommit([cp = checkpointer.get()](int wal_pages) { cp->Committed(wal_pages); });
  }
  const bool incremental = vacuum == AutoVacuum::kIncremental;
  return std::unique_ptr<SessionStore>(new SessionStore(std::move(options), std::move(checkpointer),
                                                        std::move(writer), std::move(readers),
                                                        incremental));
}

SessionStore::SessionStore(StoreOptions options, std::unique_ptr<WalCheckpointer> checkpointer,
                           std::unique_ptr<Database> writer, std::unique_ptr<ReadPool> readers,
                           bool incremental_vacuum)
    : options_(std::move(options)),
      incremental_vacuum_(incremental_vacuum),
      checkpointer_(std::move(checkpointer)),
      writer_(std::move(writer)),
      readers_(std::move(readers)) {}

// Readers close first, then the writer (which checkpoints the WAL and
// removes it), then the checkpointer, which the writer's commits call.
SessionStore::~SessionStore() = default;

void SessionStore::Hook(StoreStep step, const std::string& session_id) const {
  if (options_.test_hook) options_.test_hook(step, session_id);
}

absl::Status SessionStore::Write(StoreStep step, const std::string& session_id,
                                 const std::function<absl::Status(Database&)>& body) {
  absl::MutexLock lock(&write_mu_);
  Transaction txn(*writer_);
  RETURN_IF_ERROR(txn.Begin());
  Hook(step, session_id);
  // Any error below returns before Commit(), and txn rolls everything back.
  RETURN_IF_ERROR(body(*writer_));
  RAW_FAILPOINT("store.commit.before");
  RETURN_IF_ERROR(txn.Commit());
  RAW_FAILPOINT("store.commit.after");
  return absl::OkStatus();
}

absl::Status SessionStore::Read(const std::string& session_id,
                                const std::function<absl::Status(Database&)>& body) {
  auto run = [&](Database& db) -> absl::Status {
    Transaction txn(db, TransactionMode::kRead);
    RETURN_IF_ERROR(txn.Begin());
    RETURN_IF_ERROR(body(db));
    Hook(StoreStep::kReading, session_id);
    return txn.Commit();
  };
  if (readers_ == nullptr) {
    absl::MutexLock lock(&write_mu_);
    return run(*writer_);
  }
  ReadPool::Lease lease = readers_->Acquire();
  return run(lease.db());
}

absl::Status SessionStore::CreateSession(const SessionRecord& record) {
  if (record.id.empty()) return absl::InvalidArgumentError("session id is empty");
  absl::Status status = Write(StoreStep::kCommitWriting, record.id, [&](Database& db) {
    ASSIGN_OR_RETURN(Statement insert,
                     db.Prepare("INSERT INTO sessions (id, agent, cwd, created_at, "
                                "last_activity_at, title, model) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    insert.BindString(0, record.id);
    insert.BindString(1, record.agent);
    insert.BindString(2, record.cwd);
    insert.BindInt64(3, record.created_at_unix_ms);
    insert.BindInt64(4, record.last_activity_unix_ms != 0 ? record.last_activity_unix_ms
                                                          : record.created_at_unix_ms);
    insert.BindString(5, record.title);
    insert.BindString(6, record.model);
    return insert.Run();
  });
  if (absl::IsAlreadyExists(status)) {
    return absl::AlreadyExistsError(absl::StrCat("session ", record.id, " already exists"));
  }
  return status;
}

absl::Status SessionStore::SetAgentAndModel(const std::string& session_id,
                                            const std::string& agent, const std::string& model) {
  bool found = false;
  RETURN_IF_ERROR(Write(StoreStep::kCommitWriting, session_id, [&](Database& db) -> absl::Status {
    ASSIGN_OR_RETURN(Statement update,
                     db.Prepare("UPDATE sessions SET agent = ?1, model = ?2 "
                                "WHERE id = ?3 AND removing = 0"));
    update.BindString(0, agent);
    update.BindString(1, model);
    update.BindString(2, session_id);
    RETURN_IF_ERROR(update.Run());
    found = db.ChangedRows() > 0;
    return absl::OkStatus();
  }));
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " not found"));
  return absl::OkStatus();
}

absl::StatusOr<SessionRecord> SessionStore::GetSession(const std::string& id) {
  std::optional<SessionRecord> record;
  absl::Status read = Read(id, [&](Database& db) -> absl::Status {
    ASSIGN_OR_RETURN(Statement select,
                     db.Prepare(absl::StrCat(kSelectSessionRow, "WHERE id = ?1 AND removing = 0")));
    select.BindString(0, id);
    ASSIGN_OR_RETURN(bool found, select.Step());
    if (found) record = ReadSessionRow(select);
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  if (!record) return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  return *std::move(record);
}

absl::StatusOr<SessionPage> SessionStore::ListSessions(int page_size,
                                                       const std::string& page_token,
                                                       const std::string& query) {
  const int limit = ClampLimit(page_size);
  std::optional<SessionListPosition> after;
  if (!page_token.empty()) {
    ASSIGN_OR_RETURN(after, DecodeSessionPageToken(page_token));
  }
  SessionPage page;
  absl::Status read = Read("", [&](Database& db) -> absl::Status {
    // Keyset paging over the sessions_by_activity index: a page starts
    // strictly after the last entry of the previous one, so sessions created
    // meanwhile (which sort first) never shift or repeat later pages.
    constexpr char kOrder[] = "ORDER BY last_activity_at DESC, id DESC LIMIT ?3";
    // SQLite's lower() folds ASCII only, as the query is folded here.
    const std::string matching =
        query.empty() ? "" : "AND (instr(lower(title), ?4) > 0 OR instr(lower(cwd), ?4) > 0) ";
    ASSIGN_OR_RETURN(
        Statement select,
        db.Prepare(after ? absl::StrCat(kSelectSessionRow,
                                        "WHERE removing = 0 AND (last_activity_at, id) < (?1, ?2) ",
                                        matching, kOrder)
                         : absl::StrCat(kSelectSessionRow, "WHERE removing = 0 ", matching, kOrder)));
    if (!query.empty()) select.BindString(3, absl::AsciiStrToLower(query));
    if (after) {
      select.BindInt64(0, after->last_activity_unix_ms);
      select.BindString(1, after->id);
    }
    select.BindInt(2, limit + 1);  // one more tells whether a next page exists
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
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  return page;
}

absl::Status SessionStore::Commit(const std::string& session_id, const CommitBatch& batch) {
  ASSIGN_OR_RETURN(EncodedCommit encoded, EncodeCommit(session_id, batch));
  return Write(StoreStep::kCommitWriting, session_id,
               [&](Database& db) { return WriteCommit(db, session_id, batch, encoded); });
}

absl::StatusOr<std::vector<events::SessionEvent>> SessionStore::ReadEvents(
    const std::string& session_id, uint64_t after_seq, int limit, size_t max_bytes) {
  const size_t bytes = max_bytes == 0 ? options_.history_read_bytes
                                      : std::min(max_bytes, options_.history_read_bytes);
  StoredEventRows rows;
  absl::Status read = Read(session_id, [&](Database& db) -> absl::Status {
    RETURN_IF_ERROR(CheckSession(db, session_id));
    ASSIGN_OR_RETURN(
        rows, QueryEventRows(db, session_id, kEventsAfterSql, after_seq, ClampLimit(limit), bytes));
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  return DecodeEventRows(session_id, std::move(rows.rows));
}

absl::StatusOr<HistoryPage> SessionStore::GetHistory(const std::string& session_id,
                                                     const std::string& cursor, int limit,
                                                     HistoryDirection direction) {
  const bool forward = direction == HistoryDirection::kForward;
  uint64_t position = forward ? 0 : std::numeric_limits<uint64_t>::max();
  if (!cursor.empty()) {
    ASSIGN_OR_RETURN(position, DecodeHistoryCursor(session_id, cursor));
  }
  StoredEventRows rows;
  absl::Status read = Read(session_id, [&](Database& db) -> absl::Status {
    RETURN_IF_ERROR(CheckSession(db, session_id));
    // At least one event, then no more than history_read_bytes of them (by
    // default kMaxHistoryPageBytes): a page of prompts with images must fit
    // a client's message limit, and the daemon must not hold `limit` such
    // prompts to build it.
    ASSIGN_OR_RETURN(
        rows, QueryEventRows(db, session_id, forward ? kEventsAfterSql : kEventsBeforeSql, position,
                             ClampLimit(limit), options_.history_read_bytes));
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  HistoryPage page;
  ASSIGN_OR_RETURN(page.events, DecodeEventRows(session_id, std::move(rows.rows)));
  if (rows.more) page.next_cursor = EncodeHistoryCursor(session_id, page.events.back().seq);
  return page;
}

absl::StatusOr<std::vector<events::ContextItem>> SessionStore::LoadContext(
    const std::string& session_id) {
  std::vector<events::ContextItem> items;
  absl::Status read = Read(session_id, [&](Database& db) -> absl::Status {
    RETURN_IF_ERROR(CheckSession(db, session_id));
    ASSIGN_OR_RETURN(size_t expected, ContextSizeHint(db, session_id));
    ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT position, payload FROM context_items "
                                                  "WHERE session_id = ?1 ORDER BY position ASC"));
    select.BindString(0, session_id);
    items.clear();
    // Room for the turns to come as well: a loaded context is appended to
    // at once, and a vector that is full would move every item for the
    // next one (about half a millisecond at 10,000 items, in the turn).
    items.reserve(expected + expected / 4 + 64);
    // Decoded straight from SQLite's buffer: no copy of the row first.
    const std::function<int64_t()> position = [&select] { return select.ColumnInt64(0); };
    while (true) {
      ASSIGN_OR_RETURN(bool has_row, select.Step());
      if (!has_row) break;
      RETURN_IF_ERROR(
          DecodeContextRow(session_id, position, select.ColumnBytes(1), items.emplace_back()));
    }
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  return items;
}

absl::StatusOr<std::vector<std::string>> SessionStore::ReadToolMeta(const std::string& session_id,
                                                                  const std::string& tool) {
  std::vector<std::string> metas;
  absl::Status read = Read(session_id, [&](Database& db) -> absl::Status {
    RETURN_IF_ERROR(CheckSession(db, session_id));
    ASSIGN_OR_RETURN(Statement select, db.Prepare(kToolMetaSql));
    select.BindString(0, session_id);
    select.BindString(1, tool);
    for (;;) {
      ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) return absl::OkStatus();
      std::string meta = select.ColumnString(0);
      if (!meta.empty()) metas.push_back(std::move(meta));
    }
  });
  RETURN_IF_ERROR(read);
  return metas;
}

absl::StatusOr<uint64_t> SessionStore::FirstSeqOfTurn(const std::string& session_id,
                                                      const std::string& turn_id) {
  std::optional<uint64_t> seq;
  absl::Status read = Read(session_id, [&](Database& db) -> absl::Status {
    // A session being removed has no turns, whatever rows it has left.
    if (!CheckSession(db, session_id).ok()) return absl::OkStatus();
    ASSIGN_OR_RETURN(Statement select, db.Prepare(kFirstSeqOfTurnSql));
    select.BindString(0, session_id);
    select.BindString(1, turn_id);
    ASSIGN_OR_RETURN(bool found, select.Step());
    if (found) seq = static_cast<uint64_t>(select.ColumnInt64(0));
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  if (!seq) {
    return absl::NotFoundError(
        absl::StrCat("session ", session_id, " has no stored event of turn ", turn_id));
  }
  return *seq;
}

absl::StatusOr<bool> SessionStore::NoteOnce(const std::string& key) {
  if (key.empty()) return absl::InvalidArgumentError("NoteOnce: the key is empty");
  bool first = false;
  absl::Status written = Write(StoreStep::kCommitWriting, "", [&](Database& db) -> absl::Status {
    // The value records when the key was first noted (Unix ms).
    ASSIGN_OR_RETURN(Statement insert, db.Prepare("INSERT INTO meta (key, value) VALUES (?1, ?2) "
                                                  "ON CONFLICT (key) DO NOTHING"));
    insert.BindString(0, key);
    insert.BindString(1, absl::StrCat(SystemClock().NowUnixMs()));
    RETURN_IF_ERROR(insert.Run());
    first = db.ChangedRows() == 1;
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(written);
  return first;
}

}  // namespace raw::store
