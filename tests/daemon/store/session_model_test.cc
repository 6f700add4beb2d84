// SessionStore: a session's chosen model (SessionRecord::model): stored at
// creation, changed with SetAgentAndModel, and added to a database from the
// schema before it by migration 6.
#include <string>
#include <vector>

#include "daemon/store/migrator.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using testing::TempDir;

SessionRecord Record(const std::string& id, const std::string& model) {
  SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.model = model;
  record.cwd = "/";
  record.created_at_unix_ms = 5;
  return record;
}

TEST(SessionModelTest, CreatedWithAModelAndChangedWithTheAgent) {
  TempDir dir;
  auto store = SessionStore::Open(dir.File(DatabaseFileName()));
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->CreateSession(Record("a", "big")).ok());
  ASSERT_TRUE((*store)->CreateSession(Record("b", "")).ok());
  EXPECT_EQ((*store)->GetSession("a")->model, "big");
  EXPECT_EQ((*store)->GetSession("b")->model, "");

  ASSERT_TRUE((*store)->SetAgentAndModel("b", "reviewer", "small").ok());
  auto b = (*store)->GetSession("b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->agent, "reviewer");
  EXPECT_EQ(b->model, "small");
  EXPECT_EQ(b->last_activity_unix_ms, 5);  // a setting is no conversation activity
  EXPECT_EQ((*store)->GetSession("a")->model, "big");  // the other row is untouched

  absl::Status missing = (*store)->SetAgentAndModel("ghost", "coder", "");
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
}

// A database written before the model column existed opens, is migrated in
// place, and its sessions read with the agent's own model ("").
TEST(SessionModelTest, DatabaseFromTheSchemaBeforeTheModelIsMigrated) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  {
    auto db = *Database::Open(path);
    std::vector<Migration> earlier = BuiltInMigrations();
    ASSERT_EQ(earlier.size(), 6u);
    earlier.resize(5);
    ASSERT_TRUE(Migrate(*db, earlier).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at) "
                         "VALUES ('old', 'coder', '/', 1, 2)")
                    .ok());
  }
  auto store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto record = (*store)->GetSession("old");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->agent, "coder");
  EXPECT_EQ(record->model, "");
  ASSERT_TRUE((*store)->SetAgentAndModel("old", "coder", "big").ok());
  EXPECT_EQ((*store)->GetSession("old")->model, "big");
  store->reset();
  auto db = *Database::Open(path);
  EXPECT_EQ(*db->QueryInt64("PRAGMA user_version"), LatestSchemaVersion());
  EXPECT_EQ(LatestSchemaVersion(), 6);
}

}  // namespace
}  // namespace raw::store
