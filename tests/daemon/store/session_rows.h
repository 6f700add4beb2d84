// Helpers of the store tests that purge and expire sessions: a session
// record, and how many rows of a table a session still has.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gtest/gtest.h"

namespace raw::store::testing {

// A session of agent "coder" in "/", last active at `activity_ms`.
inline SessionRecord Session(const std::string& id, int64_t activity_ms) {
  SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.cwd = "/";
  record.created_at_unix_ms = 1;
  record.last_activity_unix_ms = activity_ms;
  return record;
}

// The rows of `table` in the database at `path` whose session_id is `id`.
inline int64_t RowsOf(const std::string& path, const std::string& table, const std::string& id) {
  auto db = *Database::Open(path);
  auto select = *db->Prepare("SELECT count(*) FROM " + table + " WHERE session_id = ?1");
  select.BindString(0, id);
  EXPECT_TRUE(*select.Step());
  return select.ColumnInt64(0);
}

}  // namespace raw::store::testing
