// RepairSeqCounters: puts right, when the store opens, the sequence
// counters of a sessions row that its own history contradicts.
//
// Every commit writes a session's events and its last_seq in one
// transaction, so last_seq is the seq of its newest stored event and
// seq_reserved is never below it. A row that breaks this (a damaged file,
// another program's UPDATE: a negative last_seq, say) would make the
// session number its next events wrongly, and every later commit of the
// session fail. Such a row gets last_seq = the seq of its newest event (0
// with none) and seq_reserved at least that, and a warning names the
// session and both values. No event or context row is changed. Internal to
// the session store.
#pragma once

#include "absl/status/statusor.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

// Returns how many rows it repaired, or the error that stopped it (then
// nothing is changed).
absl::StatusOr<int> RepairSeqCounters(Database& db);

}  // namespace raw::store
