// The tool-metadata index (migrations 0008 and 0011) over stored rows that
// are not valid JSON: an upgrade never fails on one, the damaged row is
// still reported when read, and every database ends with the same index.
#include <string>
#include <vector>

#include "daemon/store/event_queries.h"
#include "daemon/store/migrator.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// The 0008 that earlier builds ran: no json_valid in its condition.
constexpr char kEarlier0008[] =
    "CREATE INDEX events_tool_meta ON events (session_id, json_extract(payload, '$.tool'), seq) "
    "WHERE kind = 'tool_result' AND json_extract(payload, '$.meta') IS NOT NULL;";

// Migrates the database at `path` through `through` of the built-in
// migrations, then stores sessions "good" (a tool result with metadata) and,
// when `bad_row`, "bad", whose tool result at seq 2 is not JSON.
void MakeDatabase(const std::string& path, std::vector<Migration> migrations, size_t through,
                  bool bad_row) {
  auto db = *Database::Open(path);
  migrations.resize(through);
  ASSERT_TRUE(Migrate(*db, migrations).ok());
  ASSERT_TRUE(db->Exec(R"sql(
      INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at, last_seq)
        VALUES ('good', 'coder', '/', 1, 9000000000000, 1);
      INSERT INTO events (session_id, seq, turn_id, kind, payload, created_at)
        VALUES ('good', 1, 't1', 'tool_result',
                '{"kind":"tool_result","call_id":"c1","name":"task","tool":"builtin/task","meta":{"n":1}}',
                1);
  )sql")
                  .ok());
  if (!bad_row) return;
  ASSERT_TRUE(db->Exec(R"sql(
      INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at, last_seq)
        VALUES ('bad', 'coder', '/', 1, 9000000000000, 3);
      INSERT INTO events (session_id, seq, turn_id, kind, payload, created_at) VALUES
        ('bad', 1, 't1', 'user_message', '{"kind":"user_message","text":"hi"}', 1),
        ('bad', 2, 't1', 'tool_result', '{"kind":"tool_result", truncated', 1),
        ('bad', 3, 't1', 'user_message', '{"kind":"user_message","text":"again"}', 1);
  )sql")
                  .ok());
}

std::string IndexSql(const std::string& path) {
  auto db = *Database::Open(path);
  auto select = *db->Prepare(
      "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'events_tool_meta'");
  EXPECT_TRUE(*select.Step());
  return select.ColumnString(0);
}

// One tool result that is not JSON (a torn write of an old build, a damaged
// page) no longer stops the upgrade past version 7, and so the daemon's
// start: the other sessions read as before, and the damaged row is still
// reported, naming session and seq, when its history is read.
TEST(ToolMetaUpgradeTest, ARowThatIsNotJsonDoesNotStopTheUpgrade) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  MakeDatabase(path, BuiltInMigrations(), 7, /*bad_row=*/true);

  auto store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE((*store)->GetSession("good").ok());
  auto metas = (*store)->ReadToolMeta("good", "builtin/task");
  ASSERT_TRUE(metas.ok()) << metas.status();
  EXPECT_THAT(*metas, ::testing::ElementsAre(R"({"n":1})"));
  EXPECT_TRUE((*store)->ReadToolMeta("bad", "builtin/task")->empty());

  auto history = (*store)->GetHistory("bad", "", 10, HistoryDirection::kForward);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kDataLoss) << history.status();
  EXPECT_THAT(std::string(history.status().message()), HasSubstr("session bad, event seq 2"));
  store->reset();
  auto db = *Database::Open(path);
  EXPECT_EQ(*db->QueryInt64("PRAGMA user_version"), LatestSchemaVersion());
}

// A database that ran the earlier 0008 gets the index rebuilt with the
// current condition: it ends with the same index as a database made now,
// which the tool-metadata query searches.
TEST(ToolMetaUpgradeTest, TheEarlierIndexIsRebuiltWithTheCurrentCondition) {
  TempDir dir;
  const std::string earlier = dir.File("earlier.sqlite3");
  std::vector<Migration> migrations = BuiltInMigrations();
  ASSERT_GE(migrations.size(), 11u);
  migrations[7].sql = kEarlier0008;
  MakeDatabase(earlier, migrations, 10, /*bad_row=*/false);
  ASSERT_THAT(IndexSql(earlier), ::testing::Not(HasSubstr("json_valid")));

  auto store = SessionStore::Open(earlier);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_THAT(*(*store)->ReadToolMeta("good", "builtin/task"),
              ::testing::ElementsAre(R"({"n":1})"));
  store->reset();

  const std::string fresh = dir.File("fresh.sqlite3");
  ASSERT_TRUE(SessionStore::Open(fresh).ok());
  EXPECT_EQ(IndexSql(earlier), IndexSql(fresh));
  auto db = *Database::Open(earlier);
  auto plan = *db->Prepare(std::string("EXPLAIN QUERY PLAN ") + kToolMetaSql);
  ASSERT_TRUE(*plan.Step());
  EXPECT_THAT(plan.ColumnString(3),
              HasSubstr("SEARCH events USING INDEX events_tool_meta (session_id=? AND <expr>=?)"));
}

}  // namespace
}  // namespace raw::store
