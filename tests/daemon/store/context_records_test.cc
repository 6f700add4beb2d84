// The model context's rows: binary records from schema version 10 on, the
// JSON that earlier versions wrote still read after the migration.
#include <string>
#include <vector>

#include "daemon/events/event_codec.h"
#include "daemon/store/migrator.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/statement.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

std::vector<std::string> PayloadTypes(const std::string& path, const std::string& session) {
  auto db = *Database::Open(path);
  auto select = *db->Prepare(
      "SELECT typeof(payload) FROM context_items WHERE session_id = ?1 ORDER BY position");
  select.BindString(0, session);
  std::vector<std::string> types;
  while (*select.Step()) types.push_back(select.ColumnString(0));
  return types;
}

TEST(ContextRecordsTest, RowsOfAnEarlierVersionAreKeptAndReadBesideNewRecords) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  const std::vector<events::ContextItem> old_items = {
      events::UserText{"fix the bug", events::UserTextKind::kPrompt, "t1"},
      events::AssistantTurn{"reading", "", {{"call_1", "read_file", R"({"path":"a.cc"})"}}, {}},
      events::ToolOutcome{"call_1", "read_file", "int main() {}", false},
  };
  {
    // The file as version 9 left it: JSON rows in a TEXT column.
    auto db = *Database::Open(path);
    std::vector<Migration> up_to_9 = BuiltInMigrations();
    up_to_9.resize(9);
    ASSERT_TRUE(Migrate(*db, up_to_9).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at) "
                         "VALUES ('s1', 'default', '/tmp', 1, 1)")
                    .ok());
    for (size_t i = 0; i < old_items.size(); ++i) {
      auto insert = *db->Prepare(
          "INSERT INTO context_items (session_id, position, payload) VALUES ('s1', ?1, ?2)");
      insert.BindInt64(0, static_cast<int64_t>(i));
      insert.BindString(1, events::EncodeContextItem(old_items[i]));
      ASSERT_TRUE(insert.Run().ok());
    }
  }
  auto store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<events::ContextItem>> loaded = (*store)->LoadContext("s1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, old_items);

  CommitBatch batch;
  batch.context_appends = {events::AssistantTurn{"done", "", {}, {}}};
  ASSERT_TRUE((*store)->Commit("s1", batch).ok());
  loaded = (*store)->LoadContext("s1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<events::ContextItem> all = old_items;
  all.push_back(batch.context_appends[0]);
  EXPECT_EQ(*loaded, all);
  EXPECT_THAT(PayloadTypes(path, "s1"), ElementsAre("text", "text", "text", "blob"));

  // A rewrite (compaction, /clear) stores every item as a record.
  CommitBatch rewrite;
  rewrite.replace_context = std::vector<events::ContextItem>{old_items[0], old_items[2]};
  ASSERT_TRUE((*store)->Commit("s1", rewrite).ok());
  EXPECT_THAT(PayloadTypes(path, "s1"), ElementsAre("blob", "blob"));
  loaded = (*store)->LoadContext("s1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, *rewrite.replace_context);
}

TEST(ContextRecordsTest, ADamagedRecordIsNamedByItsPosition) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  auto store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  SessionRecord record;
  record.id = "s1";
  ASSERT_TRUE((*store)->CreateSession(record).ok());
  CommitBatch batch;
  batch.context_appends = {events::UserText{"a"}, events::UserText{"b"}, events::UserText{"c"}};
  ASSERT_TRUE((*store)->Commit("s1", batch).ok());
  {
    auto db = *Database::Open(path);
    // Cut the last byte off the record at position 1.
    ASSERT_TRUE(db->Exec("UPDATE context_items SET payload = substr(payload, 1, length(payload) - 1) "
                         "WHERE session_id = 's1' AND position = 1")
                    .ok());
  }
  absl::StatusOr<std::vector<events::ContextItem>> loaded = (*store)->LoadContext("s1");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(), HasSubstr("session s1, context item at position 1"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("inside field \"turn_id\""));
}

}  // namespace
}  // namespace raw::store
