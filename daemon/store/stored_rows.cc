#include "daemon/store/stored_rows.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/events/context_record.h"
#include "daemon/events/event_codec.h"
#include "daemon/store/sqlite/statement.h"

namespace raw::store {

int64_t SeqToSql(uint64_t seq) {
  return static_cast<int64_t>(
      std::min<uint64_t>(seq, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
}

absl::StatusOr<StoredEventRows> QueryEventRows(Database& db, const std::string& session_id,
                                               const char* sql, uint64_t seq, int limit,
                                               size_t max_bytes) {
  ASSIGN_OR_RETURN(Statement select, db.Prepare(sql));
  select.BindString(0, session_id);
  select.BindInt64(1, SeqToSql(seq));
  select.BindInt(2, limit + 1);  // one row more says whether more follow
  StoredEventRows result;
  size_t bytes = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool has_row, select.Step());
    if (!has_row) break;
    if (static_cast<int>(result.rows.size()) == limit) {
      result.more = true;  // not read: a corrupt row there belongs to the next page
      break;
    }
    // Seqs start at 1; the schema cannot say so, and a damaged or forged
    // row below would become a seq near 2^64 and a cursor that never ends.
    if (const int64_t row_seq = select.ColumnInt64(0); row_seq < 1) {
      return absl::DataLossError(absl::StrCat("session ", session_id, ": a stored event has seq ",
                                              row_seq, ", below 1: the row is damaged"));
    }
    // Measured before it is copied: SQLite holds one row at a time, so a
    // page of large rows costs the budget, not `limit` times the row size.
    const std::string_view payload = select.ColumnBytes(3);
    bytes += payload.size();
    if (!result.rows.empty() && bytes > max_bytes) {
      result.more = true;
      break;
    }
    result.rows.push_back({static_cast<uint64_t>(select.ColumnInt64(0)), select.ColumnString(1),
                           select.ColumnString(2), std::string(payload), select.ColumnInt64(4)});
  }
  return result;
}

absl::StatusOr<std::vector<events::SessionEvent>> DecodeEventRows(
    const std::string& session_id, std::vector<StoredEventRow> rows) {
  std::vector<events::SessionEvent> decoded;
  decoded.reserve(rows.size());
  for (StoredEventRow& row : rows) {
    events::SessionEvent event;
    event.session_id = session_id;
    event.seq = row.seq;
    event.turn_id = std::move(row.turn_id);
    absl::StatusOr<events::EventPayload> payload = events::DecodePayload(row.kind, row.payload);
    if (!payload.ok()) {
      return absl::DataLossError(
          absl::StrCat("session ", session_id, ", event seq ", event.seq,
                       ": stored payload does not decode: ", payload.status().message()));
    }
    event.payload = *std::move(payload);
    event.time_unix_ms = row.time_unix_ms;
    decoded.push_back(std::move(event));
  }
  return decoded;
}

absl::Status DecodeContextRow(const std::string& session_id,
                              const std::function<int64_t()>& position, std::string_view payload,
                              events::ContextItem& out) {
  absl::Status decoded = events::DecodeContextRecord(payload, out);
  if (decoded.ok()) return decoded;
  return absl::DataLossError(absl::StrCat("session ", session_id, ", context item at position ",
                                          position(), " does not decode: ", decoded.message()));
}

}  // namespace raw::store
