// SessionStore: sessions, display history and model context in SQLite.
//
// One database file per schema generation (see DatabaseFileName) under the
// state directory, opened in WAL mode with synchronous=NORMAL, foreign keys
// and a busy timeout; numbered migrations tracked with PRAGMA user_version.
// A file the store creates is private (mode 0600) and uses incremental
// auto-vacuum, so PurgeExpired can give the space of removed sessions back a
// few pages at a time; a file from a build that made it without auto-vacuum
// is converted once, by one VACUUM when Open() finds it (see Open).
// Every Commit() is one transaction: once it returns OK the rows survive a
// kill -9 of the process at any later moment. Reading (records, listings,
// history, context) never changes a session's last activity.
//
// Two records per session:
// - display history: the durable SessionEvents in seq order (append-only);
// - model context: the ContextItems the next request includes, in order.
//
// Connections. One writer connection does every write, one transaction at a
// time (writes are serialized by a mutex). Reads go to a small pool of
// read-only connections (StoreOptions::read_connections): under WAL a read
// sees the last committed state and never waits for the writer, so reading
// one session never waits for another session's commit, and reads wait for
// each other only when the whole pool is lent out. Each read runs in one
// read transaction (one snapshot), and rows are decoded after its
// connection has gone back to the pool. Writes encode their JSON before they
// take the writer. Removing a session (DeleteSession, PurgeExpired) first
// marks it removed in one short transaction, which hides it from every read
// and write at once, then deletes its rows in batches of
// StoreOptions::removal_batch_rows, one short transaction each, so other
// sessions commit between two batches.
// An in-memory database (":memory:") is private to one connection, so there
// the store runs on the writer alone and reads take the writer's mutex: a
// shared-cache in-memory database would let readers fail with
// SQLITE_LOCKED while a write is open, which is worse than waiting, and only
// tests use in-memory stores.
//
// SessionRecord and ExpiresAt (session_record.h), DatabaseFileName and
// FindOldDatabases (database_files.h) come with this header. The removal of
// sessions is implemented in session_removal.cc.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"
#include "daemon/events/usage.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_record.h"

namespace raw::store {

class Database;  // store/sqlite/db.h
class ReadPool;         // store/read_pool.h
class WalCheckpointer;  // store/wal_checkpointer.h

// Page and limit sanity for ListSessions, ReadEvents and GetHistory: a
// non-positive size means kDefaultPageSize; larger sizes are capped.
inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;

struct SessionPage {
  std::vector<SessionRecord> sessions;
  std::string next_page_token;  // empty at the end
};

// A plugin's settings as stored (GetPluginSettings).
struct PluginSettings {
  std::string ns;
  std::string settings_json = "{}";
  int64_t revision = 0;
};
inline constexpr size_t kMaxPluginSettingsBytes = 64 * 1024;

// What PurgeExpired and FinishRemovals did once the sessions to remove were
// marked (hidden from every read and write).
struct RemovalReport {
  // Sessions whose rows are all gone, least recently active first.
  std::vector<std::string> removed;
  // Sessions hidden whose rows could not all be deleted (a damaged page, a
  // full disk), in the same order: they stay hidden, and the next
  // PurgeExpired or FinishRemovals tries them again. One such session stops
  // neither the others' removal nor the space coming back.
  std::vector<std::string> unfinished;
  // OK, or every failure after the marking, each unfinished session named
  // with its error, and a failure to give the space back.
  absl::Status status;
};

enum class HistoryDirection { kForward, kBackward };

// GetHistory and ReadEvents end a page early, after at least one event,
// once the stored payloads of its events would pass this many bytes. The
// bound holds while the rows are read, not only for what is returned: a row
// that would pass it is measured in SQLite's buffer and left for the next
// call, so a read holds at most this much (or one event, when that alone is
// larger) whatever the limit asked for.
inline constexpr size_t kMaxHistoryPageBytes = 16 * 1024 * 1024;

struct HistoryPage {
  std::vector<events::SessionEvent> events;
  std::string next_cursor;  // empty at the end
};

// What one Commit writes atomically.
struct CommitBatch {
  // Durable events with seq already assigned (consecutive, > last_seq).
  std::vector<events::SessionEvent> events;
  // Items appended to the model context.
  std::vector<events::ContextItem> context_appends;
  // Usage of one request to add to the session totals.
  std::optional<events::Usage> usage;
  // Moves last_activity (committed conversation activity).
  bool conversation_activity = false;
  // Sets the title if the session has none yet.
  std::string title;
  // When set, replaces the whole model context before context_appends are
  // appended (compaction writes the summary here; /clear an empty list). The
  // display history is never rewritten.
  std::optional<std::vector<events::ContextItem>> replace_context;
  // When set, replaces the saved context-estimate state / runtime hash.
  std::optional<std::string> context_meter{};
  std::optional<std::string> runtime_hash{};
  // Counts one accepted compaction.
  bool compaction_accepted = false;
  // When above the session's seq_reserved, raises it (SessionRecord).
  uint64_t reserve_seqs_through = 0;
};

// The points at which StoreOptions::test_hook is called.
enum class StoreStep {
  // The writer is held and a write transaction of Commit is open on it.
  kCommitWriting,
  // The writer is held and a removal batch's transaction is open on it.
  kRemovalWriting,
  // A removal batch of the session was committed and the writer released.
  kRemovalBatchDone,
  // A read connection is held and its read transaction has its snapshot.
  kReading,
};

struct StoreOptions {
  // Read-only connections beside the writer (at least 1); ignored for an
  // in-memory database.
  int read_connections = 4;
  // The page cache of the writer and of each read connection, in KiB (0:
  // SQLite's default, 2,000 KiB). SQLite fills a connection's cache up to
  // its bound and keeps it, so with SQLite's default the five connections
  // would hold up to 10 MB once the database is larger than that, on top of
  // the kernel's cache of the same file. A commit touches a few pages at the
  // right edge of each b-tree; a read walks a range in order, and its interior
  // pages are what a small cache keeps (docs/performance.md, "SQLite's page
  // caches").
  int write_cache_kib = 1024;
  int read_cache_kib = 256;
  // Rows of a removed session's history, and as many of its context, deleted
  // per transaction.
  int removal_batch_rows = 1000;
  // Free pages given back to the file system per transaction after a purge.
  int vacuum_step_pages = 256;
  // Payload bytes a history read (GetHistory, ReadEvents) copies at most
  // after its first row; tests lower it to page through small rows.
  size_t history_read_bytes = kMaxHistoryPageBytes;
  // For tests: called at each StoreStep with the session concerned ("" when
  // none), on the calling thread, so a test can hold the store at that point.
  std::function<void(StoreStep, const std::string& session_id)> test_hook;
};

class SessionStore {
 public:
  // Opens (creating if needed) the database at `path` and migrates it. A
  // file without auto-vacuum (made by an earlier build) is switched to
  // incremental auto-vacuum here by one VACUUM, a rewrite of the whole file
  // that needs as much free disk space and happens before the store serves
  // anything, once per file; after that no purge ever rewrites the file. If
  // that VACUUM fails (a full disk, say) the file stays as it was, which is
  // logged, and purges then leave freed pages inside it for later writes.
  static absl::StatusOr<std::unique_ptr<SessionStore>> Open(const std::string& path);
  static absl::StatusOr<std::unique_ptr<SessionStore>> Open(const std::string& path,
                                                            StoreOptions options);
  ~SessionStore();

  // Stores a new session from the id, agent, model, cwd, times and title of
  // `record`; last_seq, usage, context_meter, runtime_hash and compactions
  // start empty or at zero whatever `record` holds. An
  // empty id is kInvalidArgument, an existing one kAlreadyExists. A zero
  // last activity time starts at the creation time.
  absl::Status CreateSession(const SessionRecord& record);
  // Sets the session's agent and model (SessionRecord::model) in one
  // transaction; kNotFound when the session is absent. Moves no activity
  // time.
  absl::Status SetAgentAndModel(const std::string& session_id, const std::string& agent,
                                const std::string& model);
  // Removes the session with its history and context; kNotFound when absent.
  // The session disappears for every other call at once; its rows then go
  // in batches. `hidden` (may be null) tells whether it disappeared: when a
  // batch fails after that (a full disk), the error says so, and the rows
  // left are deleted by the next FinishRemovals or PurgeExpired.
  absl::Status DeleteSession(const std::string& id, bool* hidden = nullptr);
  // kNotFound with the id when absent.
  absl::StatusOr<SessionRecord> GetSession(const std::string& id);
  // Most recently active first. `page_token` is opaque ("" = first page);
  // a malformed token is kInvalidArgument. A non-empty `query` keeps only the
  // sessions whose title or directory contains it, ignoring ASCII case; the
  // pages of a query continue with the same query.
  absl::StatusOr<SessionPage> ListSessions(int page_size, const std::string& page_token,
                                           const std::string& query = "");

  // Writes `batch` in one transaction, or nothing: events must be durable,
  // belong to the session (or name none) and carry seq last_seq+1, +2, ...
  // (otherwise kInternal). A batch without events (context, usage, meter or
  // hash only) is fine. Only a batch with conversation_activity moves
  // last_activity: to the newest event time of the batch (the current time
  // when no event carries one), and never back.
  absl::Status Commit(const std::string& session_id, const CommitBatch& batch);

  // Stored events with seq > after_seq, oldest first, at most `limit`, and
  // fewer once their payloads pass `max_bytes` (0: kMaxHistoryPageBytes;
  // never none while any follow after_seq): callers read on from the last
  // seq returned until an empty result. A stored row that does not decode
  // is kDataLoss naming session and seq.
  absl::StatusOr<std::vector<events::SessionEvent>> ReadEvents(const std::string& session_id,
                                                               uint64_t after_seq, int limit,
                                                               size_t max_bytes = 0);

  // One page of display history; cursors are opaque and stay valid while
  // new events are appended. A malformed cursor is kInvalidArgument.
  // kForward: seq ascending after the cursor (from the start when empty);
  // kBackward: seq descending before the cursor (from the newest when empty).
  absl::StatusOr<HistoryPage> GetHistory(const std::string& session_id, const std::string& cursor,
                                         int limit, HistoryDirection direction);

  absl::StatusOr<std::vector<events::ContextItem>> LoadContext(const std::string& session_id);

  // The host-side metadata (ToolResult::meta) of the session's results of
  // tool `tool` that carry any, oldest first, read through an index: the
  // cost grows with those results only, not with the session's history.
  absl::StatusOr<std::vector<std::string>> ReadToolMeta(const std::string& session_id,
                                                        const std::string& tool);

  // The smallest stored seq of turn `turn_id` of the session, found through
  // an index (the cost does not grow with the session's history). kNotFound
  // naming both ids when the session has no stored event of that turn.
  absl::StatusOr<uint64_t> FirstSeqOfTurn(const std::string& session_id,
                                          const std::string& turn_id);

  // Removes every session whose last activity is before `cutoff_unix_ms`,
  // with its history and context, and gives the space back to the file
  // system. Reports the removed ids, least recently active first (with any
  // removal a crash or a failure cut short, which is finished here), and
  // the sessions it could not finish (RemovalReport); the error status is
  // only for a failure to mark the expired sessions, which changes
  // nothing. The expired
  // sessions disappear together in one short transaction; then their rows
  // go in batches and the free pages in steps (PRAGMA incremental_vacuum),
  // each its own short transaction, so reads never wait for the purge and
  // other sessions' commits wait at most for one batch or step. A last WAL
  // checkpoint shrinks the files unless a reader is active, in which case a
  // later checkpoint does.
  absl::StatusOr<RemovalReport> PurgeExpired(int64_t cutoff_unix_ms);
  // Finishes every removal that was cut short (the process died between two
  // batches, or a batch failed) and gives the space back, like
  // PurgeExpired but marking nothing new: the owner calls it whether or not
  // sessions expire, so a deleted session's rows never stay in the file.
  // Reports the ids it finished and those it still could not.
  absl::StatusOr<RemovalReport> FinishRemovals();

  // Plugin settings (plugin_settings.cc): one JSON object per namespace,
  // with a revision that counts its writes (0: never written; then "{}").
  // The namespace must match [a-z0-9][a-z0-9._-]{0,63} (kInvalidArgument).
  absl::StatusOr<PluginSettings> GetPluginSettings(const std::string& ns);
  // Replaces the namespace's settings when `expected_revision` is its
  // revision now, and returns the new one; a stale revision is
  // kFailedPrecondition naming both, and nothing is written. The text must
  // be a JSON object of at most kMaxPluginSettingsBytes (kInvalidArgument).
  absl::StatusOr<PluginSettings> SetPluginSettings(const std::string& ns,
                                                   const std::string& settings_json,
                                                   int64_t expected_revision);

  // True the first time `key` is noted in this database file, false every
  // later time, also from another SessionStore on the same file. An empty
  // key is kInvalidArgument.
  absl::StatusOr<bool> NoteOnce(const std::string& key);

 private:
  SessionStore(StoreOptions options, std::unique_ptr<WalCheckpointer> checkpointer,
               std::unique_ptr<Database> writer, std::unique_ptr<ReadPool> readers,
               bool incremental_vacuum);

  // Runs `body` in one write transaction on the writer, calling the test
  // hook with `step` once the transaction is open.
  absl::Status Write(StoreStep step, const std::string& session_id,
                     const std::function<absl::Status(Database&)>& body)
      ABSL_LOCKS_EXCLUDED(write_mu_);
  // Runs `body` in one read transaction on a pooled read connection (the
  // writer in single-connection mode).
  absl::Status Read(const std::string& session_id,
                    const std::function<absl::Status(Database&)>& body)
      ABSL_LOCKS_EXCLUDED(write_mu_);
  void Hook(StoreStep step, const std::string& session_id) const;

  // Deletes the rows of a session already marked removed, batch by batch,
  // the session row last.
  absl::Status RemoveMarked(const std::string& session_id) ABSL_LOCKS_EXCLUDED(write_mu_);
  // Gives free pages back in steps, then checkpoints the WAL without
  // waiting for readers.
  absl::Status ReclaimSpaceInSteps() ABSL_LOCKS_EXCLUDED(write_mu_);

  const StoreOptions options_;
  // The file uses incremental auto-vacuum (PurgeExpired gives pages back).
  const bool incremental_vacuum_;
  // Takes the writer's WAL checkpoints (null without WAL); outlives the
  // writer, whose commits call it.
  const std::unique_ptr<WalCheckpointer> checkpointer_;
  absl::Mutex write_mu_;
  std::unique_ptr<Database> writer_ ABSL_GUARDED_BY(write_mu_);
  // Null in single-connection mode (an in-memory database).
  const std::unique_ptr<ReadPool> readers_;
};

}  // namespace raw::store
