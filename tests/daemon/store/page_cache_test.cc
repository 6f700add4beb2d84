// The store bounds the page cache of each of its connections
// (StoreOptions::write_cache_kib, read_cache_kib): SQLite fills a
// connection's cache up to its bound and keeps it, so without a bound a
// long-running daemon's memory grows with its database up to 2,000 KiB per
// connection.
#include <sqlite3.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "daemon/store/session_store.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/session_rows.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

constexpr int kEvents = 4000;  // of 2 KB each: 8 MB of history

// SQLite's heap (sqlite3_memory_used) with a store open on a database of
// kEvents events that its writer has just written and four threads have
// then each read in full, at once, page by page.
int64_t SqliteMemoryWithCachesFilled(StoreOptions options) {
  testing::TempDir dir;
  auto store = SessionStore::Open(dir.File(DatabaseFileName()), std::move(options));
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return 0;
  EXPECT_TRUE((*store)->CreateSession(testing::Session("s1", 1)).ok());
  const std::string text(2000, 'x');
  uint64_t seq = 0;
  while (seq < kEvents) {
    CommitBatch batch;
    for (int i = 0; i < 20; ++i) {
      events::SessionEvent event;
      event.seq = ++seq;
      event.turn_id = "turn_1";
      event.payload = events::AssistantMessage{text + std::to_string(seq), "", 1};
      batch.events.push_back(std::move(event));
    }
    absl::Status committed = (*store)->Commit("s1", batch);
    EXPECT_TRUE(committed.ok()) << committed;
    if (!committed.ok()) return 0;
  }
  std::vector<std::thread> readers;
  std::vector<int> read(4, 0);
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      std::string cursor;
      do {
        auto page = (*store)->GetHistory("s1", cursor, 100, HistoryDirection::kForward);
        if (!page.ok()) break;
        read[r] += static_cast<int>(page->events.size());
        cursor = page->next_cursor;
      } while (!cursor.empty());
    });
  }
  for (auto& reader : readers) reader.join();
  for (int count : read) EXPECT_EQ(count, kEvents);
  return sqlite3_memory_used();
}

TEST(StorePageCacheTest, TheCachesStayWithinTheirBoundsWhateverTheDatabasesSize) {
  const int64_t bounded = SqliteMemoryWithCachesFilled(StoreOptions{});
  StoreOptions sqlite_defaults;
  sqlite_defaults.write_cache_kib = 0;
  sqlite_defaults.read_cache_kib = 0;
  const int64_t unbounded = SqliteMemoryWithCachesFilled(sqlite_defaults);
  std::printf(
      "[page caches] SQLite heap with the store's bounds %lld kB, with SQLite's defaults "
      "%lld kB\n",
      static_cast<long long>(bounded / 1024), static_cast<long long>(unbounded / 1024));
  // The bounds: 1,024 KiB for the writer and 256 KiB for each of four
  // readers, 2 MiB together, plus schemas and prepared statements.
  EXPECT_LE(bounded, 3 * 1024 * 1024);
  // The same work with SQLite's default of 2,000 KiB per connection holds
  // more (the writer's cache alone takes about 2 MB): the bound is what
  // keeps the figure above small.
  EXPECT_GT(unbounded, bounded + 1024 * 1024);
}

}  // namespace
}  // namespace raw::store
