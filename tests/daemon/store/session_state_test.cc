// SessionStore: the loop's saved state (context meter, runtime hash,
// compactions), FirstSeqOfTurn and its index, NoteOnce, and the upgrade of a
// database from the schema before them.
#include <string>
#include <vector>

#include "common/time.h"
#include "daemon/store/event_queries.h"
#include "daemon/store/migrator.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using events::SessionEvent;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

SessionEvent Event(uint64_t seq, const std::string& turn_id) {
  SessionEvent event;
  event.seq = seq;
  event.turn_id = turn_id;
  event.time_unix_ms = 9000 + static_cast<int64_t>(seq);
  event.payload = events::AssistantMessage{"m" + std::to_string(seq), "", 1};
  return event;
}

SessionEvent Result(uint64_t seq, const std::string& tool, const std::string& meta) {
  SessionEvent event = Event(seq, "t1");
  events::ToolResult result;
  result.call_id = "c" + std::to_string(seq);
  result.name = tool;
  result.tool = tool;
  result.content = "output";
  result.meta = meta;
  event.payload = result;
  return event;
}

class SessionStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File(DatabaseFileName());
    Reopen();
    SessionRecord record;
    record.id = "s1";
    record.agent = "coder";
    record.created_at_unix_ms = 100;
    record.last_activity_unix_ms = 1000;
    record.context_meter = "ignored";
    record.runtime_hash = "ignored";
    record.compactions = 7;
    ASSERT_TRUE(store_->CreateSession(record).ok());
    record.id = "s2";
    ASSERT_TRUE(store_->CreateSession(record).ok());
  }
  void Reopen() {
    store_.reset();
    auto opened = SessionStore::Open(path_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }
  SessionRecord Get(const std::string& id) {
    auto record = store_->GetSession(id);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? *record : SessionRecord{};
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<SessionStore> store_;
};

TEST_F(SessionStateTest, NewSessionStartsWithoutSavedState) {
  SessionRecord record = Get("s1");
  EXPECT_EQ(record.context_meter, "");
  EXPECT_EQ(record.runtime_hash, "");
  EXPECT_EQ(record.compactions, 0);
}

TEST_F(SessionStateTest, EventlessBatchesSaveMeterHashAndCompactions) {
  CommitBatch first;
  first.context_meter = "meter-1";
  first.runtime_hash = "hash-1";
  ASSERT_TRUE(store_->Commit("s1", first).ok());
  SessionRecord record = Get("s1");
  EXPECT_EQ(record.context_meter, "meter-1");
  EXPECT_EQ(record.runtime_hash, "hash-1");
  EXPECT_EQ(record.compactions, 0);
  EXPECT_EQ(record.last_seq, 0u);
  EXPECT_EQ(record.last_activity_unix_ms, 1000);  // not conversation activity

  CommitBatch hash_only;  // an unset field keeps its value
  hash_only.runtime_hash = "hash-2";
  ASSERT_TRUE(store_->Commit("s1", hash_only).ok());
  CommitBatch compaction;
  compaction.compaction_accepted = true;
  compaction.replace_context = std::vector<events::ContextItem>{events::UserText{"summary"}};
  compaction.context_meter = "";  // an empty text is a value too
  ASSERT_TRUE(store_->Commit("s1", compaction).ok());
  compaction.replace_context.reset();
  compaction.context_meter = "meter-3";
  ASSERT_TRUE(store_->Commit("s1", compaction).ok());
  record = Get("s1");
  EXPECT_EQ(record.context_meter, "meter-3");
  EXPECT_EQ(record.runtime_hash, "hash-2");
  EXPECT_EQ(record.compactions, 2);
  EXPECT_EQ(record.last_activity_unix_ms, 1000);

  SessionRecord other = Get("s2");  // another session is not touched
  EXPECT_EQ(other.context_meter, "");
  EXPECT_EQ(other.compactions, 0);

  Reopen();
  record = Get("s1");
  EXPECT_EQ(record.context_meter, "meter-3");
  EXPECT_EQ(record.runtime_hash, "hash-2");
  EXPECT_EQ(record.compactions, 2);
}

TEST_F(SessionStateTest, EventlessBatchWithConversationActivityMovesActivityToNow) {
  const int64_t before = SystemClock().NowUnixMs();
  CommitBatch batch;
  batch.context_meter = "m";
  batch.conversation_activity = true;
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  EXPECT_GE(Get("s1").last_activity_unix_ms, before);
}

// One commit may change every part of the session's row at once (they are
// written by one statement); a reservation never goes down and a title is
// set only once.
TEST_F(SessionStateTest, ACommitChangesEveryPartOfTheRowTogether) {
  CommitBatch all;
  all.events = {Event(1, "t1"), Event(2, "t1")};
  events::Usage usage;
  usage.input_tokens = 100;
  usage.cache_read_tokens = 60;
  usage.output_tokens = 7;
  all.usage = usage;
  all.context_meter = "meter-1";
  all.runtime_hash = "hash-1";
  all.compaction_accepted = true;
  all.reserve_seqs_through = 40;
  all.conversation_activity = true;
  all.title = "the title";
  ASSERT_TRUE(store_->Commit("s1", all).ok());

  CommitBatch later;
  later.events = {Event(3, "t2")};
  later.usage = usage;
  later.reserve_seqs_through = 20;  // below the reservation: kept at 40
  later.conversation_activity = true;
  later.title = "another title";
  ASSERT_TRUE(store_->Commit("s1", later).ok());

  for (int open = 0; open < 2; ++open) {
    SessionRecord record = Get("s1");
    EXPECT_EQ(record.last_seq, 3u);
    EXPECT_EQ(record.seq_reserved, 40u);
    EXPECT_EQ(record.usage_requests, 2);
    EXPECT_EQ(record.usage.input_tokens, 200);
    EXPECT_EQ(record.usage.output_tokens, 14);
    EXPECT_EQ(record.usage_coverage.cache_read_tokens, 2);
    EXPECT_FALSE(record.usage.reasoning_tokens.has_value());
    EXPECT_EQ(record.cache_ratio.requests, 2);
    EXPECT_EQ(record.cache_ratio.cache_read_tokens, 120);
    EXPECT_EQ(record.context_meter, "meter-1");
    EXPECT_EQ(record.runtime_hash, "hash-1");
    EXPECT_EQ(record.compactions, 1);
    EXPECT_EQ(record.last_activity_unix_ms, 9003);  // the newest event's time
    EXPECT_EQ(record.title, "the title");
    SessionRecord other = Get("s2");
    EXPECT_EQ(other.last_seq, 0u);
    EXPECT_EQ(other.usage_requests, 0);
    EXPECT_EQ(other.title, "");
    Reopen();
  }
}

TEST_F(SessionStateTest, FailedCommitSavesNoState) {
  CommitBatch bad;
  bad.events = {Event(1, "t1"), Event(3, "t1")};  // gap
  bad.context_meter = "never";
  bad.runtime_hash = "never";
  bad.compaction_accepted = true;
  EXPECT_EQ(store_->Commit("s1", bad).code(), absl::StatusCode::kInternal);
  SessionRecord record = Get("s1");
  EXPECT_EQ(record.context_meter, "");
  EXPECT_EQ(record.runtime_hash, "");
  EXPECT_EQ(record.compactions, 0);
}

TEST_F(SessionStateTest, FirstSeqOfTurn) {
  CommitBatch batch;
  batch.events = {Event(1, "t1"), Event(2, "t1"), Event(3, "t2"), Event(4, "t2")};
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  CommitBatch later;  // after live-only seqs 5..6
  later.events = {Event(7, "t3"), Event(8, "t2")};
  ASSERT_TRUE(store_->Commit("s1", later).ok());
  CommitBatch other;
  other.events = {Event(1, "t9"), Event(2, "t3")};
  ASSERT_TRUE(store_->Commit("s2", other).ok());

  EXPECT_EQ(*store_->FirstSeqOfTurn("s1", "t1"), 1u);
  EXPECT_EQ(*store_->FirstSeqOfTurn("s1", "t2"), 3u);
  EXPECT_EQ(*store_->FirstSeqOfTurn("s1", "t3"), 7u);
  EXPECT_EQ(*store_->FirstSeqOfTurn("s2", "t3"), 2u);

  for (const auto& [session, turn] :
       std::vector<std::pair<std::string, std::string>>{{"s1", "t9"}, {"s1", ""}, {"nope", "t1"}}) {
    auto missing = store_->FirstSeqOfTurn(session, turn);
    EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(std::string(missing.status().message()),
                AllOf(HasSubstr("session " + session), HasSubstr("turn " + turn)));
  }
}

std::string QueryPlan(Database& db, const std::string& sql) {
  auto explain = db.Prepare("EXPLAIN QUERY PLAN " + sql);
  EXPECT_TRUE(explain.ok()) << explain.status();
  std::string plan;
  while (explain.ok() && *explain->Step()) plan += explain->ColumnString(3) + "\n";
  return plan;
}

// Every events query is a search of an index: its cost does not grow with
// the length of a session's history.
TEST_F(SessionStateTest, EventQueriesSearchAnIndex) {
  store_.reset();
  auto db = *Database::Open(path_);
  const std::string turn_plan = QueryPlan(*db, kFirstSeqOfTurnSql);
  EXPECT_THAT(turn_plan, HasSubstr("SEARCH events USING COVERING INDEX events_by_turn "
                                   "(session_id=? AND turn_id=?)"));
  EXPECT_THAT(QueryPlan(*db, kToolMetaSql),
              HasSubstr("SEARCH events USING INDEX events_tool_meta (session_id=? AND <expr>=?)"));
  for (const char* sql : {kFirstSeqOfTurnSql, kEventsAfterSql, kEventsBeforeSql, kToolMetaSql}) {
    const std::string plan = QueryPlan(*db, sql);
    EXPECT_THAT(plan, AllOf(HasSubstr("SEARCH events USING"), Not(HasSubstr("SCAN")),
                            Not(HasSubstr("TEMP B-TREE"))))
        << sql;
  }
}

// A tool's metadata comes back oldest first, from its own results only:
// other tools, other sessions, results without metadata and other events
// are left out.
TEST_F(SessionStateTest, ReadToolMetaReturnsOneToolsMetadataInOrder) {
  CommitBatch batch;
  batch.events = {Result(1, "builtin/raven_task", R"({"n":1})"), Event(2, "t1"),
                  Result(3, "builtin/bash", R"({"other":true})"),
                  Result(4, "builtin/raven_task", ""), Result(5, "builtin/raven_task", R"({"n":2})")};
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  CommitBatch other;
  other.events = {Result(1, "builtin/raven_task", R"({"n":"s2"})")};
  ASSERT_TRUE(store_->Commit("s2", other).ok());

  auto metas = store_->ReadToolMeta("s1", "builtin/raven_task");
  ASSERT_TRUE(metas.ok()) << metas.status();
  EXPECT_THAT(*metas, ::testing::ElementsAre(R"({"n":1})", R"({"n":2})"));
  EXPECT_THAT(*store_->ReadToolMeta("s1", "builtin/bash"), ::testing::ElementsAre(R"({"other":true})"));
  EXPECT_TRUE(store_->ReadToolMeta("s1", "builtin/none")->empty());
  EXPECT_EQ(store_->ReadToolMeta("nope", "builtin/raven_task").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SessionStateTest, NoteOnceIsTrueOnlyTheFirstTimeInThisFile) {
  EXPECT_EQ(*store_->NoteOnce("old_database:/a"), true);
  EXPECT_EQ(*store_->NoteOnce("old_database:/a"), false);
  EXPECT_EQ(*store_->NoteOnce("old_database:/b"), true);
  Reopen();
  EXPECT_EQ(*store_->NoteOnce("old_database:/a"), false);
  EXPECT_EQ(*store_->NoteOnce("old_database:/b"), false);
  EXPECT_EQ(*store_->NoteOnce("old_database:/c"), true);

  auto empty = store_->NoteOnce("");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("key is empty"));

  // Another file has its own notes.
  auto other = SessionStore::Open(dir_.File("other.sqlite3"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(*(*other)->NoteOnce("old_database:/a"), true);
}

// A database written before the saved-state columns existed opens, is
// migrated in place, and its sessions read with empty state.
TEST(SessionStateUpgradeTest, DatabaseFromTheEarlierSchemaIsMigrated) {
  TempDir dir;
  const std::string path = dir.File(DatabaseFileName());
  {
    auto db = *Database::Open(path);
    std::vector<Migration> earlier = BuiltInMigrations();
    ASSERT_GE(earlier.size(), 4u);
    earlier.resize(3);
    ASSERT_TRUE(Migrate(*db, earlier).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at, "
                         "last_seq) VALUES ('old', 'coder', '/', 1, 2, 1); "
                         "INSERT INTO events (session_id, seq, turn_id, kind, payload, "
                         "created_at) VALUES ('old', 1, 't1', 'user_message', "
                         "'{\"text\":\"hi\"}', 2)")
                    .ok());
  }
  auto store = SessionStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  auto record = (*store)->GetSession("old");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->last_activity_unix_ms, 2);
  EXPECT_EQ(record->context_meter, "");
  EXPECT_EQ(record->runtime_hash, "");
  EXPECT_EQ(record->compactions, 0);
  EXPECT_EQ(*(*store)->FirstSeqOfTurn("old", "t1"), 1u);
  EXPECT_TRUE(*(*store)->NoteOnce("k"));
  store->reset();
  auto db = *Database::Open(path);
  EXPECT_EQ(*db->QueryInt64("PRAGMA user_version"), LatestSchemaVersion());
}

}  // namespace
}  // namespace raw::store
