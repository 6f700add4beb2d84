// SessionStore: display history paging, the model context, corrupt rows and
// durability across a killed process.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <limits>
#include <string>
#include <vector>

#include "daemon/store/page_token.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using events::SessionEvent;
using ::testing::HasSubstr;
using testing::TempDir;

SessionEvent HistoryMessage(uint64_t seq) {
  SessionEvent event;
  event.seq = seq;
  event.turn_id = "turn_" + std::to_string((seq + 9) / 10);
  event.time_unix_ms = 1000 + static_cast<int64_t>(seq);
  event.payload = events::AssistantMessage{"message " + std::to_string(seq), "", 1};
  return event;
}

std::vector<uint64_t> Seqs(const std::vector<SessionEvent>& events) {
  std::vector<uint64_t> seqs;
  for (const auto& e : events) seqs.push_back(e.seq);
  return seqs;
}

std::vector<uint64_t> Range(uint64_t from, uint64_t to) {  // inclusive, either direction
  std::vector<uint64_t> r;
  if (from <= to) {
    for (uint64_t s = from; s <= to; ++s) r.push_back(s);
  } else {
    for (uint64_t s = from; s >= to; --s) r.push_back(s);
  }
  return r;
}

class SessionHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File(DatabaseFileName());
    auto opened = SessionStore::Open(path_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
    SessionRecord record;
    record.id = "s1";
    record.agent = "coder";
    record.cwd = "/";
    ASSERT_TRUE(store_->CreateSession(record).ok());
    record.id = "s2";
    ASSERT_TRUE(store_->CreateSession(record).ok());
  }
  void Append(const std::string& session, uint64_t from, uint64_t to) {
    CommitBatch batch;
    for (uint64_t seq = from; seq <= to; ++seq) batch.events.push_back(HistoryMessage(seq));
    ASSERT_TRUE(store_->Commit(session, batch).ok());
  }
  HistoryPage Page(const std::string& cursor, int limit, HistoryDirection direction) {
    auto page = store_->GetHistory("s1", cursor, limit, direction);
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *page : HistoryPage{};
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<SessionStore> store_;
};

TEST_F(SessionHistoryTest, EventsComeBackWhole) {
  CommitBatch batch;
  batch.events = {HistoryMessage(1)};
  events::ToolResult result{
      "c1", "ls", "builtin/ls", events::ToolStatus::kError, "boom", 12, {}, {}};
  SessionEvent second = HistoryMessage(2);
  second.payload = result;
  batch.events.push_back(second);
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  auto stored = store_->ReadEvents("s1", 0, 10);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 2u);
  SessionEvent expected = second;
  expected.session_id = "s1";
  EXPECT_EQ((*stored)[1], expected);
  EXPECT_EQ((*stored)[0].time_unix_ms, 1001);
  EXPECT_EQ((*stored)[0].turn_id, "turn_1");
}

// Prompts with images are large: a page ends early, after at least one
// event, once its payloads pass kMaxHistoryPageBytes, and the cursor goes
// on from there.
TEST_F(SessionHistoryTest, APageOfLargeEventsEndsEarlyAndTheCursorGoesOn) {
  CommitBatch batch;
  for (uint64_t seq = 1; seq <= 5; ++seq) {
    SessionEvent event = HistoryMessage(seq);
    events::UserMessage message{"look"};
    message.images = {{"image/png", std::string(6 * 1024 * 1024, 'A'), 1, 1}};
    event.payload = message;
    batch.events.push_back(event);
  }
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  for (HistoryDirection direction : {HistoryDirection::kForward, HistoryDirection::kBackward}) {
    std::vector<uint64_t> seqs;
    std::string cursor;
    int pages = 0;
    do {
      HistoryPage page = Page(cursor, 100, direction);
      ASSERT_FALSE(page.events.empty());
      EXPECT_LE(page.events.size(), 2u);
      for (const SessionEvent& e : page.events) seqs.push_back(e.seq);
      cursor = page.next_cursor;
      ++pages;
    } while (!cursor.empty() && pages < 10);
    EXPECT_EQ(pages, 3);
    EXPECT_EQ(seqs, direction == HistoryDirection::kForward ? Range(1, 5) : Range(5, 1));
  }
  // One event larger than the bound still comes back, alone.
  CommitBatch huge;
  SessionEvent event = HistoryMessage(6);
  events::UserMessage message{"big"};
  message.images = {{"image/png", std::string(kMaxHistoryPageBytes + 1, 'A'), 1, 1}};
  event.payload = message;
  huge.events.push_back(event);
  ASSERT_TRUE(store_->Commit("s1", huge).ok());
  HistoryPage last = Page("", 100, HistoryDirection::kBackward);
  ASSERT_EQ(last.events.size(), 1u);
  EXPECT_EQ(last.events[0].seq, 6u);
  EXPECT_FALSE(last.next_cursor.empty());
}

// The schema cannot keep a seq below 1 out; such a row (damaged, or
// written by hand) is reported naming it, rather than read as a seq near
// 2^64 whose cursor would send backward paging round for ever.
TEST_F(SessionHistoryTest, AStoredSeqBelowOneIsDataLossNamingTheRow) {
  Append("s1", 1, 3);
  {
    auto db = *Database::Open(path_);
    ASSERT_TRUE(db->Exec("INSERT INTO events (session_id, seq, turn_id, kind, payload, "
                         "created_at) VALUES ('s1', -5, 't', 'notice', '{}', 1)")
                    .ok());
  }
  HistoryPage newest = Page("", 2, HistoryDirection::kBackward);
  EXPECT_EQ(Seqs(newest.events), Range(3, 2));
  auto older = store_->GetHistory("s1", newest.next_cursor, 10, HistoryDirection::kBackward);
  EXPECT_EQ(older.status().code(), absl::StatusCode::kDataLoss) << older.status();
  EXPECT_THAT(std::string(older.status().message()),
              HasSubstr("session s1: a stored event has seq -5"));
}

// A cursor past the largest seq SQLite can hold is malformed, not clamped
// to a position whose page would come back again and again.
TEST_F(SessionHistoryTest, ACursorBeyondAnyStoredSeqIsInvalidArgument) {
  Append("s1", 1, 3);
  for (uint64_t seq : {uint64_t{1} << 63, ~uint64_t{0}}) {
    auto page =
        store_->GetHistory("s1", EncodeHistoryCursor("s1", seq), 10, HistoryDirection::kBackward);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << seq;
    EXPECT_THAT(std::string(page.status().message()), HasSubstr("beyond any stored seq"));
  }
  const uint64_t largest = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Seqs(Page(EncodeHistoryCursor("s1", largest), 10, HistoryDirection::kBackward).events),
            Range(3, 1));
}

TEST_F(SessionHistoryTest, ReadEventsAfterSeq) {
  Append("s1", 1, 30);
  Append("s2", 1, 3);
  EXPECT_EQ(Seqs(*store_->ReadEvents("s1", 25, 100)), Range(26, 30));
  EXPECT_EQ(Seqs(*store_->ReadEvents("s1", 5, 3)), Range(6, 8));
  EXPECT_TRUE(store_->ReadEvents("s1", 30, 100)->empty());
  EXPECT_EQ(store_->ReadEvents("nope", 0, 10).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SessionHistoryTest, ForwardAndBackwardPages) {
  Append("s1", 1, 25);
  Append("s2", 1, 40);  // another session's rows never leak in

  HistoryPage page = Page("", 10, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(page.events), Range(1, 10));
  page = Page(page.next_cursor, 10, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(page.events), Range(11, 20));
  page = Page(page.next_cursor, 10, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(page.events), Range(21, 25));
  EXPECT_EQ(page.next_cursor, "");

  page = Page("", 10, HistoryDirection::kBackward);
  EXPECT_EQ(Seqs(page.events), Range(25, 16));
  const std::string at_16 = page.next_cursor;
  page = Page(at_16, 10, HistoryDirection::kBackward);
  EXPECT_EQ(Seqs(page.events), Range(15, 6));
  page = Page(page.next_cursor, 10, HistoryDirection::kBackward);
  EXPECT_EQ(Seqs(page.events), Range(5, 1));
  EXPECT_EQ(page.next_cursor, "");

  // A cursor is a position: usable in either direction.
  page = Page(at_16, 3, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(page.events), Range(17, 19));
}

TEST_F(SessionHistoryTest, CursorsStayValidWhileEventsAreAppended) {
  Append("s1", 1, 20);
  HistoryPage forward = Page("", 10, HistoryDirection::kForward);
  HistoryPage backward = Page("", 10, HistoryDirection::kBackward);
  ASSERT_EQ(Seqs(backward.events), Range(20, 11));

  Append("s1", 21, 35);

  forward = Page(forward.next_cursor, 10, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(forward.events), Range(11, 20));
  forward = Page(forward.next_cursor, 10, HistoryDirection::kForward);
  EXPECT_EQ(Seqs(forward.events), Range(21, 30));
  backward = Page(backward.next_cursor, 10, HistoryDirection::kBackward);
  EXPECT_EQ(Seqs(backward.events), Range(10, 1));
}

TEST_F(SessionHistoryTest, BadCursorsAreInvalidArgument) {
  Append("s1", 1, 5);
  Append("s2", 1, 5);
  auto other = store_->GetHistory("s2", "", 2, HistoryDirection::kForward);
  ASSERT_TRUE(other.ok());
  ASSERT_FALSE(other->next_cursor.empty());

  const std::vector<std::string> bad = {"not base64 !", "eHl6", other->next_cursor,
                                        std::string(300, 'A')};
  for (const std::string& cursor : bad) {
    auto page = store_->GetHistory("s1", cursor, 10, HistoryDirection::kForward);
    EXPECT_EQ(page.status().code(), absl::StatusCode::kInvalidArgument) << cursor;
    EXPECT_THAT(std::string(page.status().message()), HasSubstr("history cursor")) << cursor;
  }
  EXPECT_EQ(store_->GetHistory("nope", "", 10, HistoryDirection::kForward).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(SessionHistoryTest, LimitDefaultsAndCap) {
  Append("s1", 1, 1200);
  EXPECT_EQ(Page("", 0, HistoryDirection::kForward).events.size(),
            static_cast<size_t>(kDefaultPageSize));
  EXPECT_EQ(Page("", -1, HistoryDirection::kBackward).events.size(),
            static_cast<size_t>(kDefaultPageSize));
  HistoryPage capped = Page("", 5000, HistoryDirection::kForward);
  EXPECT_EQ(capped.events.size(), static_cast<size_t>(kMaxPageSize));
  EXPECT_FALSE(capped.next_cursor.empty());
  EXPECT_EQ(store_->ReadEvents("s1", 0, 0)->size(), static_cast<size_t>(kDefaultPageSize));
}

TEST_F(SessionHistoryTest, ContextIsKeptApartFromTheDisplayHistory) {
  CommitBatch first;
  first.events = {HistoryMessage(1)};
  first.context_appends = {events::UserText{"list files"},
                           events::AssistantTurn{"", "", {{"c1", "ls", "{}"}}, {}}};
  ASSERT_TRUE(store_->Commit("s1", first).ok());
  CommitBatch second;  // context without events
  second.context_appends = {events::ToolOutcome{"c1", "ls", "a b", false}};
  ASSERT_TRUE(store_->Commit("s1", second).ok());
  CommitBatch third;  // events without context
  third.events = {HistoryMessage(2)};
  ASSERT_TRUE(store_->Commit("s1", third).ok());

  auto context = store_->LoadContext("s1");
  ASSERT_TRUE(context.ok()) << context.status();
  ASSERT_EQ(context->size(), 3u);
  EXPECT_EQ(std::get<events::UserText>((*context)[0]).text, "list files");
  EXPECT_EQ(std::get<events::AssistantTurn>((*context)[1]).tool_calls[0].call_id, "c1");
  EXPECT_EQ(std::get<events::ToolOutcome>((*context)[2]).content, "a b");
  EXPECT_EQ(store_->ReadEvents("s1", 0, 10)->size(), 2u);
  EXPECT_TRUE(store_->LoadContext("s2")->empty());

  // Compaction: the context is replaced; the display history stays whole.
  CommitBatch compact;
  compact.replace_context = std::vector<events::ContextItem>{events::UserText{"summary"}};
  compact.context_appends = {events::UserText{"next"}};
  ASSERT_TRUE(store_->Commit("s1", compact).ok());
  context = store_->LoadContext("s1");
  ASSERT_EQ(context->size(), 2u);
  EXPECT_EQ(std::get<events::UserText>((*context)[0]).text, "summary");
  EXPECT_EQ(std::get<events::UserText>((*context)[1]).text, "next");
  EXPECT_EQ(store_->ReadEvents("s1", 0, 10)->size(), 2u);

  // /clear: an empty replacement.
  CommitBatch clear;
  clear.replace_context = std::vector<events::ContextItem>{};
  ASSERT_TRUE(store_->Commit("s1", clear).ok());
  EXPECT_TRUE(store_->LoadContext("s1")->empty());
  EXPECT_EQ(store_->ReadEvents("s1", 0, 10)->size(), 2u);
  EXPECT_EQ(store_->LoadContext("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SessionHistoryTest, CorruptRowsAreDataLossNamingTheRow) {
  Append("s1", 1, 3);
  CommitBatch batch;
  batch.context_appends = {events::UserText{"a"}, events::UserText{"b"}};
  ASSERT_TRUE(store_->Commit("s1", batch).ok());
  {
    auto db = Database::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec("UPDATE events SET payload = '{\"text\": 3' WHERE seq = 2; "
                            "UPDATE context_items SET payload = '{\"kind\":\"what\"}' "
                            "WHERE position = 1")
                    .ok());
  }
  auto history = store_->GetHistory("s1", "", 10, HistoryDirection::kForward);
  EXPECT_EQ(history.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(history.status().message()), HasSubstr("session s1, event seq 2"));
  EXPECT_THAT(std::string(history.status().message()), HasSubstr("invalid JSON"));
  auto events = store_->ReadEvents("s1", 0, 10);
  EXPECT_EQ(events.status().code(), absl::StatusCode::kDataLoss);
  // Rows around the corrupt one still read.
  EXPECT_EQ(Seqs(*store_->ReadEvents("s1", 2, 10)), Range(3, 3));
  EXPECT_EQ(Seqs(store_->GetHistory("s1", "", 1, HistoryDirection::kBackward)->events),
            Range(3, 3));

  auto context = store_->LoadContext("s1");
  EXPECT_EQ(context.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(context.status().message()),
              HasSubstr("session s1, context item at position 1"));
  EXPECT_THAT(std::string(context.status().message()), HasSubstr("unknown context item kind"));
  EXPECT_TRUE(store_->GetSession("s1").ok());
}

// A child process commits and reports success, then dies by SIGKILL before
// it can close anything. Everything Commit() acknowledged must be there.
TEST_F(SessionHistoryTest, CommittedRowsSurviveSigkill) {
  store_.reset();  // the child opens its own connection; none crosses fork()
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    char verdict = 'n';
    auto store = SessionStore::Open(path_);
    if (store.ok()) {
      bool ok = true;
      for (uint64_t seq = 1; seq <= 50 && ok; ++seq) {
        CommitBatch batch;
        batch.events = {HistoryMessage(seq)};
        batch.context_appends = {events::UserText{"item " + std::to_string(seq)}};
        batch.usage = events::Usage{10, 1, std::nullopt, std::nullopt, std::nullopt};
        ok = (*store)->Commit("s1", batch).ok();
      }
      if (ok) verdict = 'y';
    }
    ssize_t written = write(ready[1], &verdict, 1);
    (void)written;
    while (true) pause();  // wait for SIGKILL
  }
  close(ready[1]);
  char verdict = 0;
  ASSERT_EQ(read(ready[0], &verdict, 1), 1);
  close(ready[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  ASSERT_EQ(verdict, 'y') << "the child failed to commit";

  auto reopened = SessionStore::Open(path_);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  auto record = (*reopened)->GetSession("s1");
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->last_seq, 50u);
  EXPECT_EQ(record->usage.input_tokens, 500);
  EXPECT_EQ(record->usage_requests, 50);
  EXPECT_EQ(Seqs(*(*reopened)->ReadEvents("s1", 0, 100)), Range(1, 50));
  EXPECT_EQ((*reopened)->LoadContext("s1")->size(), 50u);
}

}  // namespace
}  // namespace raw::store
