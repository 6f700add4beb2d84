// SessionStore: sessions, display history and model context in SQLite.
//
// One database file per schema generation (see DatabaseFileName) under the
// state directory, opened in WAL mode with synchronous=NORMAL, foreign keys
// and a busy timeout; numbered migrations tracked with PRAGMA user_version.
// Every Commit() is one transaction: once it returns OK the rows survive a
// kill -9 of the process at any later moment.
//
// Two records per session:
// - display history: the durable SessionEvents in seq order (append-only);
// - model context: the ContextItems the next request includes, in order.
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

namespace raw::store {

class Database;  // store/sqlite/db.h

// "sessions-v1.sqlite3": the file name carries the schema generation, so an
// older unsupported file is left untouched beside the new one.
const char* DatabaseFileName();

struct SessionRecord {
  std::string id;
  std::string agent;
  std::string cwd;
  int64_t created_at_unix_ms = 0;
  int64_t last_activity_unix_ms = 0;
  std::string title;
  uint64_t last_seq = 0;
  // Cumulative usage: each field sums the requests that reported it, and
  // has its own count of reporting requests.
  events::Usage usage;
  int64_t usage_requests = 0;  // requests that reported any usage
};

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
};

class SessionStore {
 public:
  // Opens (creating if needed) the database at `path` and migrates it.
  static absl::StatusOr<std::unique_ptr<SessionStore>> Open(const std::string& path);
  ~SessionStore();

  absl::Status CreateSession(const SessionRecord& record);
  // kNotFound with the id when absent.
  absl::StatusOr<SessionRecord> GetSession(const std::string& id);
  // Most recently active first. `page_token` is opaque ("" = first page);
  // a malformed token is kInvalidArgument.
  absl::StatusOr<SessionPage> ListSessions(int page_size, const std::string& page_token);

  absl::Status Commit(const std::string& session_id, const CommitBatch& batch);

  // Stored events with seq > after_seq, oldest first, at most `limit`.
  absl::StatusOr<std::vector<events::SessionEvent>> ReadEvents(const std::string& session_id,
                                                               uint64_t after_seq, int limit);

  // One page of display history; cursors are opaque and stay valid while
  // new events are appended. A malformed cursor is kInvalidArgument.
  absl::StatusOr<HistoryPage> GetHistory(const std::string& session_id, const std::string& cursor,
                                         int limit, HistoryDirection direction);

  absl::StatusOr<std::vector<events::ContextItem>> LoadContext(const std::string& session_id);

 private:
  explicit SessionStore(std::unique_ptr<Database> db);
  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::store
