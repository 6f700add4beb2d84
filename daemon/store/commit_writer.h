// The two halves of SessionStore::Commit: EncodeCommit checks a CommitBatch
// and turns it into rows (all the JSON encoding, done before the writer is
// taken), and WriteCommit writes those rows inside the caller's write
// transaction. Internal to the session store.
//
// EncodeCommit is a pure function and thread-safe; WriteCommit has the
// thread-safety of its Database (none).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"

namespace raw::store {

struct EncodedEvent {
  uint64_t seq = 0;
  std::string turn_id;
  const char* kind = "";
  std::string payload;  // JSON
  int64_t time_unix_ms = 0;
};

struct EncodedCommit {
  std::vector<EncodedEvent> events;
  int64_t newest_event_time = 0;  // 0 when no event carries a time
  // The records (events/context_record.h) of the context items to append, after the replacement (if any)
  // cleared the model context.
  bool replace_context = false;
  std::vector<std::string> context_appends;
};

// kInternal (as Commit documents) for a live-only event, an event of
// another session, or seqs that are not consecutive within the batch.
absl::StatusOr<EncodedCommit> EncodeCommit(const std::string& session_id, const CommitBatch& batch);

// Writes `encoded` (with the rest of `batch`) for a session that is not
// being removed. REQUIRES: a write transaction is open on `db`; on error the
// caller rolls it back.
absl::Status WriteCommit(Database& db, const std::string& session_id, const CommitBatch& batch,
                         const EncodedCommit& encoded);

}  // namespace raw::store
