// SessionStore: sessions, display history and model context in SQLite.
//
// One database file per schema generation (see DatabaseFileName) under the
// state directory, opened in WAL mode with synchronous=NORMAL, foreign keys
// and a busy timeout; numbered migrations tracked with PRAGMA user_version.
// A file the store creates is private (mode 0600) and uses incremental
// auto-vacuum, so PurgeExpired can give the space of removed sessions back.
// Every Commit() is one transaction: once it returns OK the rows survive a
// kill -9 of the process at any later moment. Reading (records, listings,
// history, context) never changes a session's last activity.
//
// Two records per session:
// - display history: the durable SessionEvents in seq order (append-only);
// - model context: the ContextItems the next request includes, in order.
//
// SessionRecord and ExpiresAt (session_record.h), DatabaseFileName and
// FindOldDatabases (database_files.h) come with this header.
//
// Thread-safety: all methods may be called from any thread; the store
// serializes access to its connection internally.
#pragma once

#include <cstdint>
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

// Page and limit sanity for ListSessions, ReadEvents and GetHistory: a
// non-positive size means kDefaultPageSize; larger sizes are capped.
inline constexpr int kDefaultPageSize = 100;
inline constexpr int kMaxPageSize = 1000;

struct SessionPage {
  std::vector<SessionRecord> sessions;
  std::string next_page_token;  // empty at the end
};

enum class HistoryDirection { kForward, kBackward };

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
};

class SessionStore {
 public:
  // Opens (creating if needed) the database at `path` and migrates it.
  static absl::StatusOr<std::unique_ptr<SessionStore>> Open(const std::string& path);
  ~SessionStore();

  // Stores a new session from the id, agent, cwd, times and title of
  // `record`; last_seq, usage, context_meter, runtime_hash and compactions
  // start empty or at zero whatever `record` holds. An
  // empty id is kInvalidArgument, an existing one kAlreadyExists. A zero
  // last activity time starts at the creation time.
  absl::Status CreateSession(const SessionRecord& record);
  // Removes the session with its history and context; kNotFound when absent.
  absl::Status DeleteSession(const std::string& id);
  // kNotFound with the id when absent.
  absl::StatusOr<SessionRecord> GetSession(const std::string& id);
  // Most recently active first. `page_token` is opaque ("" = first page);
  // a malformed token is kInvalidArgument.
  absl::StatusOr<SessionPage> ListSessions(int page_size, const std::string& page_token);

  // Writes `batch` in one transaction, or nothing: events must be durable,
  // belong to the session (or name none) and carry seq last_seq+1, +2, ...
  // (otherwise kInternal). A batch without events (context, usage, meter or
  // hash only) is fine. Only a batch with conversation_activity moves
  // last_activity: to the newest event time of the batch (the current time
  // when no event carries one), and never back.
  absl::Status Commit(const std::string& session_id, const CommitBatch& batch);

  // Stored events with seq > after_seq, oldest first, at most `limit`.
  // A stored row that does not decode is kDataLoss naming session and seq.
  absl::StatusOr<std::vector<events::SessionEvent>> ReadEvents(const std::string& session_id,
                                                               uint64_t after_seq, int limit);

  // One page of display history; cursors are opaque and stay valid while
  // new events are appended. A malformed cursor is kInvalidArgument.
  // kForward: seq ascending after the cursor (from the start when empty);
  // kBackward: seq descending before the cursor (from the newest when empty).
  absl::StatusOr<HistoryPage> GetHistory(const std::string& session_id, const std::string& cursor,
                                         int limit, HistoryDirection direction);

  absl::StatusOr<std::vector<events::ContextItem>> LoadContext(const std::string& session_id);

  // The smallest stored seq of turn `turn_id` of the session, found through
  // an index (the cost does not grow with the session's history). kNotFound
  // naming both ids when the session has no stored event of that turn.
  absl::StatusOr<uint64_t> FirstSeqOfTurn(const std::string& session_id,
                                          const std::string& turn_id);

  // Removes every session whose last activity is before `cutoff_unix_ms`,
  // with its history and context, and gives the space back to the file
  // system (see Database::ReclaimSpace: cheap on a file this store created,
  // a rewrite of the whole file on one without auto-vacuum). Returns the
  // removed ids, least recently active first. Other calls wait meanwhile.
  absl::StatusOr<std::vector<std::string>> PurgeExpired(int64_t cutoff_unix_ms);

  // True the first time `key` is noted in this database file, false every
  // later time, also from another SessionStore on the same file. An empty
  // key is kInvalidArgument.
  absl::StatusOr<bool> NoteOnce(const std::string& key);

 private:
  explicit SessionStore(std::unique_ptr<Database> db);
  absl::Status CommitLocked(const std::string& session_id, const CommitBatch& batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // kNotFound unless the session exists.
  absl::Status CheckSessionLocked(const std::string& session_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct EventRows {
    std::vector<events::SessionEvent> events;
    bool more = false;  // rows beyond `limit` exist
  };
  absl::StatusOr<EventRows> QueryEventsLocked(const std::string& session_id, const char* sql,
                                              uint64_t seq, int limit)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::store
