// The byte budget of history reads: GetHistory and ReadEvents copy no more
// than their budget of payloads out of SQLite (after the first row),
// whatever limit they are asked for, and paging still visits every event
// once. The store here has a budget of 64 KiB (StoreOptions::
// history_read_bytes; 16 MiB by default) and rows of 4 KiB, the same
// proportions as 1 MiB prompts under the default, at a size sanitizer
// builds read quickly.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/store/event_queries.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "daemon/store/stored_rows.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using events::SessionEvent;
using testing::TempDir;

constexpr uint64_t kBigEvents = 100;
constexpr size_t kBigEventBytes = 4 * 1024;
constexpr size_t kBudget = 64 * 1024;
// 64 KiB of 4 KiB payloads (each a little more with its JSON around it).
constexpr size_t kMostRowsPerRead = 17;

class HistoryReadBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File(DatabaseFileName());
    StoreOptions options;
    options.history_read_bytes = kBudget;
    auto opened = SessionStore::Open(path_, options);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
    SessionRecord record;
    record.id = "big";
    record.agent = "coder";
    record.cwd = "/";
    ASSERT_TRUE(store_->CreateSession(record).ok());
    for (uint64_t first = 1; first <= kBigEvents; first += 10) {
      CommitBatch batch;
      for (uint64_t seq = first; seq < first + 10; ++seq) {
        SessionEvent event;
        event.seq = seq;
        event.turn_id = "t1";
        event.payload = events::AssistantMessage{std::string(kBigEventBytes, 'x'), "", 1};
        batch.events.push_back(std::move(event));
      }
      ASSERT_TRUE(store_->Commit("big", batch).ok());
    }
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<SessionStore> store_;
};

// The rows a history page is built from stop at the budget while they are
// read: 500 rows are never copied to cut a page of the budget from them.
TEST_F(HistoryReadBudgetTest, RowsAreNotCopiedPastTheBudget) {
  auto db = Database::Open(path_, {.mode = OpenMode::kReadOnly});
  ASSERT_TRUE(db.ok()) << db.status();
  for (const char* sql : {kEventsAfterSql, kEventsBeforeSql}) {
    const uint64_t from = sql == kEventsAfterSql ? 0 : kBigEvents + 1;
    auto rows = QueryEventRows(**db, "big", sql, from, 500, kBudget);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_GE(rows->rows.size(), 1u) << sql;
    EXPECT_LE(rows->rows.size(), kMostRowsPerRead) << sql;
    EXPECT_TRUE(rows->more) << sql;
  }
  // One row larger than the budget still comes back: every read makes
  // progress.
  auto one = QueryEventRows(**db, "big", kEventsAfterSql, 0, 500, 10);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->rows.size(), 1u);
  EXPECT_TRUE(one->more);
}

TEST_F(HistoryReadBudgetTest, GetHistoryPagesWalkEveryEventOnce) {
  for (HistoryDirection direction : {HistoryDirection::kForward, HistoryDirection::kBackward}) {
    std::vector<uint64_t> seqs;
    std::string cursor;
    do {
      auto page = store_->GetHistory("big", cursor, 500, direction);
      ASSERT_TRUE(page.ok()) << page.status();
      ASSERT_FALSE(page->events.empty());
      EXPECT_LE(page->events.size(), kMostRowsPerRead);
      for (const SessionEvent& e : page->events) seqs.push_back(e.seq);
      cursor = page->next_cursor;
    } while (!cursor.empty() && seqs.size() <= kBigEvents);
    ASSERT_EQ(seqs.size(), kBigEvents);
    for (uint64_t i = 0; i < kBigEvents; ++i) {
      EXPECT_EQ(seqs[i], direction == HistoryDirection::kForward ? i + 1 : kBigEvents - i);
    }
  }
}

// ReadEvents (a subscriber catching up) has the same budget; its caller
// reads on from the last seq it got until nothing is left.
TEST_F(HistoryReadBudgetTest, ReadEventsStaysWithinTheBudgetAndGoesOn) {
  std::vector<uint64_t> seqs;
  uint64_t after = 0;
  for (int reads = 0; reads <= static_cast<int>(kBigEvents); ++reads) {
    auto events = store_->ReadEvents("big", after, 500);
    ASSERT_TRUE(events.ok()) << events.status();
    if (events->empty()) break;
    EXPECT_LE(events->size(), kMostRowsPerRead);
    for (const SessionEvent& e : *events) seqs.push_back(e.seq);
    after = events->back().seq;
  }
  ASSERT_EQ(seqs.size(), kBigEvents);
  for (uint64_t i = 0; i < kBigEvents; ++i) EXPECT_EQ(seqs[i], i + 1);
}

}  // namespace
}  // namespace raw::store
