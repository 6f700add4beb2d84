#include "daemon/store/session_store.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using events::AssistantMessage;
using events::SessionEvent;
using events::Usage;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

SessionRecord NewSession(const std::string& id, int64_t activity_ms) {
  SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.cwd = "/work/" + id;
  record.created_at_unix_ms = 100;
  record.last_activity_unix_ms = activity_ms;
  return record;
}

SessionEvent Message(uint64_t seq, int64_t time_ms = 5000) {
  SessionEvent event;
  event.seq = seq;
  event.turn_id = "turn_1";
  event.time_unix_ms = time_ms;
  event.payload = AssistantMessage{"message " + std::to_string(seq), "", 1};
  return event;
}

class SessionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SessionStore::Open(dir_.File(DatabaseFileName()));
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }
  SessionRecord Get(const std::string& id) {
    auto record = store_->GetSession(id);
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? *record : SessionRecord{};
  }
  std::vector<std::string> ListAllIds(int page_size, int* pages) {
    std::vector<std::string> ids;
    std::string token;
    *pages = 0;
    do {
      auto page = store_->ListSessions(page_size, token);
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok()) break;
      ++*pages;
      for (const auto& s : page->sessions) ids.push_back(s.id);
      token = page->next_page_token;
    } while (!token.empty());
    return ids;
  }

  TempDir dir_;
  std::unique_ptr<SessionStore> store_;
};

TEST_F(SessionStoreTest, FileNameCarriesTheSchemaGeneration) {
  EXPECT_STREQ(DatabaseFileName(), "sessions-v1.sqlite3");
}

TEST_F(SessionStoreTest, CreateThenGet) {
  SessionRecord record = NewSession("s1", 0);
  record.title = "first";
  record.last_seq = 99;  // ignored: a new session starts empty
  record.usage.input_tokens = 5;
  ASSERT_TRUE(store_->CreateSession(record).ok());

  SessionRecord got = Get("s1");
  EXPECT_EQ(got.id, "s1");
  EXPECT_EQ(got.agent, "coder");
  EXPECT_EQ(got.cwd, "/work/s1");
  EXPECT_EQ(got.created_at_unix_ms, 100);
  EXPECT_EQ(got.last_activity_unix_ms, 100);  // starts at creation
  EXPECT_EQ(got.title, "first");
  EXPECT_EQ(got.last_seq, 0u);
  EXPECT_EQ(got.usage, Usage{});
  EXPECT_EQ(got.usage_requests, 0);
  EXPECT_EQ(got.usage_coverage, UsageCoverage{});
}

TEST_F(SessionStoreTest, MissingDuplicateAndEmptyIds) {
  auto missing = store_->GetSession("nope");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("session nope not found"));

  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  absl::Status duplicate = store_->CreateSession(NewSession("s1", 2));
  EXPECT_EQ(duplicate.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(duplicate.message()), HasSubstr("s1"));

  EXPECT_EQ(store_->CreateSession(NewSession("", 1)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Commit("nope", CommitBatch{}).code(), absl::StatusCode::kNotFound);
}

TEST_F(SessionStoreTest, ListPagesMostRecentFirstWithTokens) {
  // Two sessions share an activity time: the id breaks the tie.
  const std::vector<std::pair<std::string, int64_t>> sessions = {
      {"a", 10}, {"b", 50}, {"c", 30}, {"d", 30}, {"e", 70}, {"f", 20}, {"g", 60}};
  for (const auto& [id, t] : sessions) ASSERT_TRUE(store_->CreateSession(NewSession(id, t)).ok());

  int pages = 0;
  EXPECT_THAT(ListAllIds(3, &pages), ElementsAre("e", "g", "b", "d", "c", "f", "a"));
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(ListAllIds(2, &pages), ElementsAre("e", "g", "b", "d", "c", "f", "a"));
  EXPECT_EQ(pages, 4);  // the second page ends inside the tie d/c
  EXPECT_THAT(ListAllIds(7, &pages), ElementsAre("e", "g", "b", "d", "c", "f", "a"));
  EXPECT_EQ(pages, 1);  // no empty trailing page

  auto first = store_->ListSessions(3, "");
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->sessions.size(), 3u);
  EXPECT_EQ(first->sessions[0].agent, "coder");
  EXPECT_FALSE(first->next_page_token.empty());
}

TEST_F(SessionStoreTest, ListTokensStayValidWhileSessionsAreAdded) {
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(store_->CreateSession(NewSession("s" + std::to_string(i), 100 + i)).ok());
  }
  auto first = store_->ListSessions(2, "");
  ASSERT_TRUE(first.ok());
  // New sessions, both newer and older than the page boundary.
  ASSERT_TRUE(store_->CreateSession(NewSession("new_top", 1000)).ok());
  ASSERT_TRUE(store_->CreateSession(NewSession("new_old", 1)).ok());
  std::vector<std::string> ids;
  for (const auto& s : first->sessions) ids.push_back(s.id);
  std::string token = first->next_page_token;
  while (!token.empty()) {
    auto page = store_->ListSessions(2, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& s : page->sessions) ids.push_back(s.id);
    token = page->next_page_token;
  }
  EXPECT_THAT(ids, ElementsAre("s5", "s4", "s3", "s2", "s1", "s0", "new_old"));
}

TEST_F(SessionStoreTest, ListQueryMatchesTitleOrDirectoryIgnoringCaseAcrossPages) {
  const struct {
    const char* id;
    const char* title;
    const char* cwd;
  } kSessions[] = {{"a", "Fix the Parser", "/src/one"}, {"b", "other", "/home/PARSER-lab"},
                   {"c", "unrelated", "/tmp"},          {"d", "parsers again", "/x"},
                   {"e", "nothing", "/y"}};
  int64_t activity = 100;
  for (const auto& entry : kSessions) {
    SessionRecord record = NewSession(entry.id, activity++);
    record.title = entry.title;
    record.cwd = entry.cwd;
    ASSERT_TRUE(store_->CreateSession(record).ok());
  }
  std::vector<std::string> ids;
  std::string token;
  int pages = 0;
  do {
    auto page = store_->ListSessions(1, token, "pArSeR");
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& s : page->sessions) ids.push_back(s.id);
    token = page->next_page_token;
    ++pages;
  } while (!token.empty());
  EXPECT_THAT(ids, ElementsAre("d", "b", "a"));
  EXPECT_EQ(pages, 3);
  // '%' and '_' are plain characters, not patterns.
  EXPECT_TRUE(store_->ListSessions(10, "", "%")->sessions.empty());
  EXPECT_EQ(store_->ListSessions(10, "", "")->sessions.size(), 5u);
}

TEST_F(SessionStoreTest, ListPageSizeDefaultsAndCap) {
  auto memory = SessionStore::Open(":memory:");
  ASSERT_TRUE(memory.ok()) << memory.status();
  for (int i = 0; i < 1005; ++i) {
    ASSERT_TRUE((*memory)->CreateSession(NewSession("s" + std::to_string(i), i)).ok());
  }
  auto page = (*memory)->ListSessions(0, "");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->sessions.size(), static_cast<size_t>(kDefaultPageSize));
  page = (*memory)->ListSessions(-5, "");
  EXPECT_EQ(page->sessions.size(), static_cast<size_t>(kDefaultPageSize));
  page = (*memory)->ListSessions(100000, "");
  EXPECT_EQ(page->sessions.size(), static_cast<size_t>(kMaxPageSize));
  EXPECT_FALSE(page->next_page_token.empty());
}

TEST_F(SessionStoreTest, MalformedListTokenIsInvalidArgument) {
  for (const std::string token : {"garbage!", "czE6MTA", "aDE6MToxMjM0NTY3OA", "czE6eDpzMQ"}) {
    auto page = store_->ListSessions(10, token);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << token;
    EXPECT_THAT(std::string(page.status().message()), HasSubstr("malformed page token")) << token;
  }
}

TEST_F(SessionStoreTest, CommitWithWrongSeqWritesNothing) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  CommitBatch good;
  good.events = {Message(1), Message(2)};
  good.context_appends = {events::UserText{"hi"}};
  ASSERT_TRUE(store_->Commit("s1", good).ok());

  CommitBatch bad;
  bad.events = {Message(3), Message(5)};  // gap
  bad.context_appends = {events::UserText{"never"}};
  bad.usage = Usage{100, 10, std::nullopt, std::nullopt, std::nullopt};
  bad.conversation_activity = true;
  bad.title = "never";
  absl::Status status = store_->Commit("s1", bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("event seq 5 where 4 was expected"));

  bad.events = {Message(2)};  // repeats a stored seq
  EXPECT_EQ(store_->Commit("s1", bad).code(), absl::StatusCode::kInternal);

  SessionRecord record = Get("s1");
  EXPECT_EQ(record.last_seq, 2u);
  EXPECT_EQ(record.usage_requests, 0);
  EXPECT_EQ(record.title, "");
  EXPECT_EQ(record.last_activity_unix_ms, 1);
  auto stored = store_->ReadEvents("s1", 0, 100);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->size(), 2u);
  auto context = store_->LoadContext("s1");
  ASSERT_TRUE(context.ok());
  EXPECT_EQ(context->size(), 1u);

  // The next correct batch still goes in.
  CommitBatch next;
  next.events = {Message(3)};
  EXPECT_TRUE(store_->Commit("s1", next).ok());
  EXPECT_EQ(Get("s1").last_seq, 3u);
}

TEST_F(SessionStoreTest, CommitRefusesLiveOnlyAndForeignEvents) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  CommitBatch batch;
  SessionEvent delta = Message(1);
  delta.payload = events::TextDelta{"x"};
  batch.events = {delta};
  absl::Status status = store_->Commit("s1", batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("text_delta events are live only"));

  SessionEvent foreign = Message(1);
  foreign.session_id = "other";
  batch.events = {foreign};
  status = store_->Commit("s1", batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("belongs to session other"));
  EXPECT_EQ(Get("s1").last_seq, 0u);
}

TEST_F(SessionStoreTest, UsageSumsKnownFieldsWithPerFieldCoverage) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  const std::vector<Usage> reports = {
      {100, 10, 50, std::nullopt, std::nullopt},
      {200, 20, std::nullopt, 5, std::nullopt},
      {std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {std::nullopt, 7, 0, std::nullopt, 3},  // a reported zero is known
      {40, std::nullopt, 30, std::nullopt, std::nullopt},
  };
  for (const Usage& usage : reports) {
    CommitBatch batch;
    batch.usage = usage;
    ASSERT_TRUE(store_->Commit("s1", batch).ok());
  }
  SessionRecord record = Get("s1");
  EXPECT_EQ(record.usage_requests, 5);
  EXPECT_EQ(record.usage.input_tokens, 340);
  EXPECT_EQ(record.usage.output_tokens, 37);
  EXPECT_EQ(record.usage.cache_read_tokens, 80);
  EXPECT_EQ(record.usage.cache_write_tokens, 5);
  EXPECT_EQ(record.usage.reasoning_tokens, 3);
  EXPECT_EQ(record.usage_coverage, (UsageCoverage{3, 3, 3, 1, 1}));
  // Ratio basis: only the requests with both input and cache reads (1st, 5th).
  EXPECT_EQ(record.cache_ratio, (CacheRatioBasis{2, 140, 80}));
}

TEST_F(SessionStoreTest, UnreportedFieldsStayUnknown) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  CommitBatch batch;
  batch.usage = Usage{std::nullopt, 12, std::nullopt, std::nullopt, std::nullopt};
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  SessionRecord record = Get("s1");
  EXPECT_FALSE(record.usage.input_tokens.has_value());
  EXPECT_EQ(record.usage.output_tokens, 12);
  EXPECT_FALSE(record.usage.cache_read_tokens.has_value());
  EXPECT_FALSE(record.usage.cache_write_tokens.has_value());
  EXPECT_FALSE(record.usage.reasoning_tokens.has_value());
}

TEST_F(SessionStoreTest, ActivityAndTitle) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1000)).ok());
  CommitBatch quiet;
  quiet.events = {Message(1, 9000)};
  ASSERT_TRUE(store_->Commit("s1", quiet).ok());
  EXPECT_EQ(Get("s1").last_activity_unix_ms, 1000);  // not conversation activity

  CommitBatch active;
  active.events = {Message(2, 7000), Message(3, 8000)};
  active.conversation_activity = true;
  active.title = "the title";
  ASSERT_TRUE(store_->Commit("s1", active).ok());
  EXPECT_EQ(Get("s1").last_activity_unix_ms, 8000);
  EXPECT_EQ(Get("s1").title, "the title");

  CommitBatch older;
  older.events = {Message(4, 2000)};
  older.conversation_activity = true;
  older.title = "another title";
  ASSERT_TRUE(store_->Commit("s1", older).ok());
  EXPECT_EQ(Get("s1").last_activity_unix_ms, 8000);  // never moves back
  EXPECT_EQ(Get("s1").title, "the title");           // only set once
}

TEST_F(SessionStoreTest, DeleteRemovesSessionHistoryAndContext) {
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  ASSERT_TRUE(store_->CreateSession(NewSession("s2", 1)).ok());
  CommitBatch batch;
  batch.events = {Message(1)};
  batch.context_appends = {events::UserText{"x"}};
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  ASSERT_TRUE(store_->Commit("s2", batch).ok());
  ASSERT_TRUE(store_->DeleteSession("s1").ok());
  EXPECT_EQ(store_->GetSession("s1").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->DeleteSession("s1").code(), absl::StatusCode::kNotFound);
  // Recreating the id starts empty: the old rows went with the session.
  ASSERT_TRUE(store_->CreateSession(NewSession("s1", 1)).ok());
  EXPECT_TRUE(store_->ReadEvents("s1", 0, 10)->empty());
  EXPECT_TRUE(store_->LoadContext("s1")->empty());
  EXPECT_EQ(store_->ReadEvents("s2", 0, 10)->size(), 1u);
}

}  // namespace
}  // namespace raw::store

namespace raw::store {
namespace {

// Deltas take seqs but are not stored: a batch may start after a gap.
TEST(SessionStoreGapTest, BatchMayStartAfterAGapOfLiveOnlySeqs) {
  TempDir dir;
  auto store = SessionStore::Open(dir.path() + "/s.sqlite3");
  ASSERT_TRUE(store.ok()) << store.status();
  SessionRecord record;
  record.id = "s1";
  ASSERT_TRUE((*store)->CreateSession(record).ok());
  auto message = [](uint64_t seq) {
    events::SessionEvent e;
    e.session_id = "s1";
    e.seq = seq;
    e.payload = events::UserMessage{"m"};
    return e;
  };
  CommitBatch first;
  first.events = {message(1), message(2)};
  ASSERT_TRUE((*store)->Commit("s1", first).ok());
  CommitBatch after_gap;
  after_gap.events = {message(7), message(8)};
  ASSERT_TRUE((*store)->Commit("s1", after_gap).ok());
  auto got = (*store)->GetSession("s1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->last_seq, 8u);
  auto stored = (*store)->ReadEvents("s1", 2, 100);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].seq, 7u);
}

}  // namespace
}  // namespace raw::store
