// TempStore: a real SQLite session store in a fresh temp directory, with one
// session created, all removed when the object goes out of scope. Plus
// small helpers the loop tests share for reading what a SessionLog stored
// or delivered.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "daemon/events/session_event.h"
#include "daemon/loop/subscription.h"
#include "daemon/store/session_store.h"
#include "gtest/gtest.h"

namespace raw::loop::testing {

class TempStore {
 public:
  explicit TempStore(const std::string& session_id = "sess_1",
                     const store::StoreOptions& options = {}) {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-loop-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto opened = store::SessionStore::Open(dir_ + "/sessions.sqlite3", options);
    EXPECT_TRUE(opened.ok()) << opened.status();
    if (opened.ok()) store_ = std::move(*opened);
    record_.id = session_id;
    record_.agent = "a";
    record_.cwd = dir_;
    if (store_) {
      EXPECT_TRUE(store_->CreateSession(record_).ok());
    }
  }
  ~TempStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  TempStore(const TempStore&) = delete;
  TempStore& operator=(const TempStore&) = delete;

  store::SessionStore& store() { return *store_; }
  const std::string& dir() const { return dir_; }
  const std::string& session_id() const { return record_.id; }

  // Every stored event of the session, oldest first.
  std::vector<events::SessionEvent> Stored() {
    std::vector<events::SessionEvent> all;
    uint64_t after = 0;
    while (true) {
      auto page = store_->ReadEvents(record_.id, after, store::kMaxPageSize);
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok() || page->empty()) return all;
      after = page->back().seq;
      all.insert(all.end(), page->begin(), page->end());
    }
  }

 private:
  std::string dir_;
  store::SessionRecord record_;
  std::unique_ptr<store::SessionStore> store_;
};

// Pulls `sub` until nothing is ready; fails the test on an error.
inline std::vector<events::SessionEvent> Drain(Subscription& sub) {
  std::vector<events::SessionEvent> got;
  while (true) {
    auto next = sub.TryNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) return got;
    got.push_back(**next);
  }
}

inline std::vector<std::string> KindsOf(const std::vector<events::SessionEvent>& evs) {
  std::vector<std::string> kinds;
  for (const auto& e : evs) kinds.push_back(events::KindName(e.payload));
  return kinds;
}

inline std::vector<uint64_t> SeqsOf(const std::vector<events::SessionEvent>& evs) {
  std::vector<uint64_t> seqs;
  for (const auto& e : evs) seqs.push_back(e.seq);
  return seqs;
}

}  // namespace raw::loop::testing
