// The rows the session store reads back, as they come out of SQLite, and
// their decoding: reads copy rows out under a read connection and decode
// them after the connection has gone back, so JSON decoding never holds a
// connection or a lock. Internal to the session store.
//
// QueryEventRows has the thread-safety of its Database (none); the decoders
// are pure functions and thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

struct StoredEventRow {
  uint64_t seq = 0;
  std::string turn_id;
  std::string kind;
  std::string payload;
  int64_t time_unix_ms = 0;
};

struct StoredEventRows {
  std::vector<StoredEventRow> rows;
  bool more = false;  // rows beyond those returned exist
};

// The rows of `sql` (one of event_queries.h: ?1 session, ?2 seq, ?3 limit),
// at most `limit`, and no more than `max_bytes` of payloads after the first
// row: a row that would take the payloads past `max_bytes` is measured in
// SQLite's buffer and not copied, and `more` says it exists. So a call
// always makes progress (one row at least) and never holds more than one
// oversized row beyond the budget, whatever `limit` is. A row with a seq
// below 1 is kDataLoss naming session and seq.
absl::StatusOr<StoredEventRows> QueryEventRows(Database& db, const std::string& session_id,
                                               const char* sql, uint64_t seq, int limit,
                                               size_t max_bytes);

// A row that does not decode is kDataLoss naming session and seq.
absl::StatusOr<std::vector<events::SessionEvent>> DecodeEventRows(const std::string& session_id,
                                                                  std::vector<StoredEventRow> rows);

// One stored model-context item (events/context_record.h); a row that does
// not decode is kDataLoss naming session and position.
// `position` is called only to name a row that does not decode.
absl::Status DecodeContextRow(const std::string& session_id,
                              const std::function<int64_t()>& position, std::string_view payload,
                              events::ContextItem& out);

// SQLite integers are signed; seqs never come near 2^63, but a forged cursor
// may, and must not wrap around.
int64_t SeqToSql(uint64_t seq);

}  // namespace raw::store
