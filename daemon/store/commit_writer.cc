#include "daemon/store/commit_writer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "common/time.h"
#include "daemon/events/context_record.h"
#include "daemon/events/event_codec.h"
#include "daemon/store/event_queries.h"
#include "daemon/store/session_row.h"
#include "daemon/store/sqlite/statement.h"
#include "daemon/store/stored_rows.h"

namespace raw::store {

absl::StatusOr<EncodedCommit> EncodeCommit(const std::string& session_id,
                                           const CommitBatch& batch) {
  EncodedCommit encoded;
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
    if (!encoded.events.empty() && event.seq != encoded.events.back().seq + 1) {
      return absl::InternalError(absl::StrCat("commit to session ", session_id, ": event seq ",
                                              event.seq, " where ", encoded.events.back().seq + 1,
                                              " was expected"));
    }
    encoded.events.push_back(
        {event.seq, event.turn_id, kind, events::EncodePayload(event.payload), event.time_unix_ms});
    encoded.newest_event_time = std::max(encoded.newest_event_time, event.time_unix_ms);
  }
  if (batch.replace_context) {
    encoded.replace_context = true;
    for (const auto& item : *batch.replace_context) {
      encoded.context_appends.push_back(events::EncodeContextRecord(item));
    }
  }
  for (const auto& item : batch.context_appends) {
    encoded.context_appends.push_back(events::EncodeContextRecord(item));
  }
  return encoded;
}

namespace {

absl::Status WriteEvents(Database& db, const std::string& session_id,
                         const std::vector<EncodedEvent>& events) {
  ASSIGN_OR_RETURN(Statement select,
                   db.Prepare("SELECT last_seq FROM sessions WHERE id = ?1 AND removing = 0"));
  select.BindString(0, session_id);
  ASSIGN_OR_RETURN(bool found, select.Step());
  if (!found) return absl::NotFoundError(absl::StrCat("session ", session_id, " not found"));
  const uint64_t last_seq = static_cast<uint64_t>(select.ColumnInt64(0));
  if (events.empty()) return absl::OkStatus();
  if (events.front().seq <= last_seq) {
    return absl::InternalError(absl::StrCat("commit to session ", session_id, ": event seq ",
                                            events.front().seq, " where more than ", last_seq,
                                            " was expected (last stored seq ", last_seq, ")"));
  }
  for (const EncodedEvent& event : events) {
    ASSIGN_OR_RETURN(Statement insert, db.Prepare(kInsertEventSql));
    insert.BindString(0, session_id);
    insert.BindInt64(1, SeqToSql(event.seq));
    insert.BindString(2, event.turn_id);
    insert.BindString(3, event.kind);
    insert.BindString(4, event.payload);
    insert.BindInt64(5, event.time_unix_ms);
    RETURN_IF_ERROR(insert.Run());
  }
  return absl::OkStatus();
}

absl::Status WriteContext(Database& db, const std::string& session_id,
                          const EncodedCommit& encoded) {
  if (encoded.replace_context) {
    ASSIGN_OR_RETURN(Statement clear,
                     db.Prepare("DELETE FROM context_items WHERE session_id = ?1"));
    clear.BindString(0, session_id);
    RETURN_IF_ERROR(clear.Run());
  }
  if (encoded.context_appends.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Statement next, db.Prepare("SELECT COALESCE(MAX(position) + 1, 0) FROM "
                                              "context_items WHERE session_id = ?1"));
  next.BindString(0, session_id);
  RETURN_IF_ERROR(next.Step().status());
  int64_t position = next.ColumnInt64(0);
  for (const std::string& payload : encoded.context_appends) {
    ASSIGN_OR_RETURN(Statement insert,
                     db.Prepare("INSERT INTO context_items (session_id, position, payload) "
                                "VALUES (?1, ?2, ?3)"));
    insert.BindString(0, session_id);
    insert.BindInt64(1, position++);
    insert.BindBlob(2, payload);
    RETURN_IF_ERROR(insert.Run());
  }
  return absl::OkStatus();
}

// Every change a commit makes to the session's row, in one UPDATE: one
// search of the sessions table and one rewrite of the row, where a
// statement per change made one each. Only the changes the commit has are
// assigned, so a column it does not touch (and an index over it) is left
// alone.
absl::Status UpdateSessionRow(Database& db, const std::string& session_id, const CommitBatch& batch,
                              const EncodedCommit& encoded) {
  std::string sql = "UPDATE sessions SET ";
  bool any = false;
  auto assign = [&](absl::string_view assignment) {
    if (any) sql += ", ";
    sql.append(assignment.data(), assignment.size());
    any = true;
  };
  if (!encoded.events.empty()) assign("last_seq = ?");
  if (batch.usage) assign(kAddUsageAssignments);
  if (batch.context_meter) assign("context_meter = ?");
  if (batch.runtime_hash) assign("runtime_hash = ?");
  if (batch.compaction_accepted) assign("compactions = compactions + 1");
  if (batch.reserve_seqs_through > 0) assign("seq_reserved = MAX(seq_reserved, ?)");
  if (batch.conversation_activity) assign("last_activity_at = MAX(last_activity_at, ?)");
  // A title is set only on a session that has none yet.
  if (!batch.title.empty()) assign("title = CASE WHEN title = '' THEN ? ELSE title END");
  if (!any) return absl::OkStatus();
  sql += " WHERE id = ?";

  // Parameters in the order of the assignments above.
  ASSIGN_OR_RETURN(Statement update, db.Prepare(sql));
  int param = 0;
  if (!encoded.events.empty()) update.BindInt64(param++, SeqToSql(encoded.events.back().seq));
  if (batch.usage) param = BindAddUsage(update, param, *batch.usage);
  if (batch.context_meter) update.BindString(param++, *batch.context_meter);
  if (batch.runtime_hash) update.BindString(param++, *batch.runtime_hash);
  if (batch.reserve_seqs_through > 0) {
    update.BindInt64(param++, SeqToSql(batch.reserve_seqs_through));
  }
  if (batch.conversation_activity) {
    update.BindInt64(param++, encoded.newest_event_time != 0 ? encoded.newest_event_time
                                                             : SystemClock().NowUnixMs());
  }
  if (!batch.title.empty()) update.BindString(param++, batch.title);
  update.BindString(param, session_id);
  return update.Run();
}

}  // namespace

absl::Status WriteCommit(Database& db, const std::string& session_id, const CommitBatch& batch,
                         const EncodedCommit& encoded) {
  RETURN_IF_ERROR(WriteEvents(db, session_id, encoded.events));
  RETURN_IF_ERROR(WriteContext(db, session_id, encoded));
  return UpdateSessionRow(db, session_id, batch, encoded);
}

}  // namespace raw::store
