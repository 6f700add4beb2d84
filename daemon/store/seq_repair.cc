#include "daemon/store/seq_repair.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/store/sqlite/statement.h"
#include "daemon/store/sqlite/transaction.h"

namespace raw::store {
namespace {

struct Counters {
  std::string id;
  int64_t last_seq = 0;
  int64_t seq_reserved = 0;
  int64_t newest = 0;  // seq of the newest stored event, 0 with none
};

}  // namespace

absl::StatusOr<int> RepairSeqCounters(Database& db) {
  // One index lookup per session (events' key is (session_id, seq)).
  ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT id, last_seq, seq_reserved, newest FROM ("
                 "SELECT id, last_seq, seq_reserved, "
                 "(SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = s.id) AS newest "
                 "FROM sessions AS s) "
                 "WHERE last_seq < 0 OR seq_reserved < 0 OR last_seq < newest"));
  std::vector<Counters> wrong;
  while (true) {
    ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    wrong.push_back({select.ColumnString(0), select.ColumnInt64(1), select.ColumnInt64(2),
                     select.ColumnInt64(3)});
  }
  if (wrong.empty()) return 0;
  Transaction txn(db);
  RETURN_IF_ERROR(txn.Begin());
  for (const Counters& c : wrong) {
    const int64_t reserved = std::max(c.newest, c.seq_reserved);
    ASSIGN_OR_RETURN(Statement update,
                     db.Prepare("UPDATE sessions SET last_seq = ?1, seq_reserved = ?2 "
                                "WHERE id = ?3"));
    update.BindInt64(0, c.newest);
    update.BindInt64(1, reserved);
    update.BindString(2, c.id);
    RETURN_IF_ERROR(update.Run());
  }
  RETURN_IF_ERROR(txn.Commit());
  for (const Counters& c : wrong) {
    RAW_LOG(Warning) << "session " << c.id << ": its stored sequence counters (last_seq "
                     << c.last_seq << ", seq_reserved " << c.seq_reserved
                     << ") did not match its history (newest event seq " << c.newest
                     << "); set to last_seq " << c.newest << ", seq_reserved "
                     << std::max(c.newest, c.seq_reserved);
  }
  return static_cast<int>(wrong.size());
}

}  // namespace raw::store
