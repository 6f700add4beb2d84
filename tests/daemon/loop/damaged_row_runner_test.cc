// SessionRunner with a damaged stored row (an event or a model-context item
// that no longer decodes): reading goes on, every write is refused naming
// the row, nothing stored changes, and once the row reads again the runner
// recovers and writes resume. A real SQLite store in a temp dir, a scripted
// provider.
#include <stdlib.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "daemon/loop/session_runner.h"
#include "tests/daemon/loop/runner_harness.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/stored_rows.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;
using testing::ScriptBook;
using testing::ScriptedProvider;
using testing::TextAnswer;

constexpr char kBadJson[] = "{\"text\": 3";

class DamagedRowRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rawdamaged.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/s.sqlite3";
    auto store = store::SessionStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    store::SessionRecord record;
    record.id = id_;
    record.agent = "a";
    record.cwd = dir_;
    ASSERT_TRUE(store_->CreateSession(record).ok());
    book_ = std::make_shared<ScriptBook>();
  }
  void TearDown() override {
    harness_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A runner as a (re)started daemon makes it: from the stored record.
  std::shared_ptr<SessionRunner> NewRunner() {
    auto record = store_->GetSession(id_);
    EXPECT_TRUE(record.ok()) << record.status();
    if (harness_ == nullptr) harness_ = std::make_unique<testing::RunnerHarness>(*store_, clock_);
    return harness_->Make(*record);
  }

  TurnPlan Plan(const std::string& text) {
    TurnPlan plan;
    plan.turn_id = NewId("turn_");
    plan.session_id = id_;
    plan.user_text = text;
    plan.cwd = dir_;
    plan.agent.agent.name = "a";
    plan.agent.agent.system_prompt = "sys";
    plan.agent.agent.max_steps = 3;
    plan.provider = std::make_unique<ScriptedProvider>(book_);
    return plan;
  }

  // Runs a turn answered with `answer` to its end.
  void RunTurn(SessionRunner& runner, const std::string& text, const std::string& answer) {
    book_->scripts.push_back(TextAnswer(answer));
    auto sub = runner.Subscribe(store_->GetSession(id_)->last_seq);
    TurnPlan plan = Plan(text);
    const std::string turn_id = plan.turn_id;
    absl::Status started = harness_->StartTurn(runner, std::move(plan));
    ASSERT_TRUE(started.ok()) << started;
    auto events = testing::ReadUntilTurnEnds(*sub, turn_id);
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_EQ(std::get<events::TurnEnded>(events->back().payload).reason,
              events::TurnEndReason::kCompleted);
  }

  template <typename T>
  uint64_t SeqOf(const std::function<bool(const T&)>& pred) {
    auto stored = store_->ReadEvents(id_, 0, 1000);
    EXPECT_TRUE(stored.ok()) << stored.status();
    for (const auto& e : *stored) {
      if (const T* p = std::get_if<T>(&e.payload); p != nullptr && pred(*p)) return e.seq;
    }
    ADD_FAILURE() << "no such event";
    return 0;
  }

  size_t Requests() {
    std::lock_guard<std::mutex> lock(book_->mu);
    return book_->requests.size();
  }

  // Every write a runner offers, with the status each returned.
  std::vector<absl::Status> TryEveryWrite(SessionRunner& runner) {
    return {harness_->StartTurn(runner, Plan("three")),
            harness_->StartCompaction(runner, Plan("")),
            harness_->Clear(runner, Plan("")).status(),
            harness_->RespondToApproval(
                runner, "approval_1", {},
                events::ApprovalAnswer{"", events::ApprovalDecision::kAllowOnce, ""})};
  }

  const std::string id_ = NewId();
  std::string dir_, path_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  std::shared_ptr<ScriptBook> book_;
  std::unique_ptr<testing::RunnerHarness> harness_;
};

TEST_F(DamagedRowRunnerTest, ADamagedEventRefusesWritesNamingItUntilItReadsAgain) {
  {
    auto runner = NewRunner();
    ASSERT_TRUE(runner->RecoverUnfinishedTurn().ok());
    RunTurn(*runner, "one", "first answer");
    RunTurn(*runner, "two", "second answer");
  }
  const uint64_t bad = SeqOf<events::AssistantMessage>(
      [](const events::AssistantMessage& m) { return m.text == "second answer"; });
  const uint64_t last_seq = store_->GetSession(id_)->last_seq;
  auto before = testing::AllStoredRows(path_);
  ASSERT_TRUE(before.ok()) << before.status();
  auto original = testing::ReplaceEventPayload(path_, id_, bad, kBadJson);
  ASSERT_TRUE(original.ok()) << original.status();

  auto runner = NewRunner();
  const std::string row = absl::StrCat("session ", id_, ", event seq ", bad);
  absl::Status recovery = runner->RecoverUnfinishedTurn();
  EXPECT_EQ(recovery.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(recovery.message()), HasSubstr(row));
  EXPECT_FALSE(runner->recovered());

  // Reading goes on: events after the damaged row, the context estimate; a
  // replay through the row stops there, naming it.
  auto sub = runner->Subscribe(bad);
  auto after_bad = testing::ReadReady(*sub);
  ASSERT_TRUE(after_bad.ok()) << after_bad.status();
  ASSERT_FALSE(after_bad->empty());
  EXPECT_GT(after_bad->front().seq, bad);
  EXPECT_TRUE(std::holds_alternative<events::TurnEnded>(after_bad->back().payload));
  auto whole = runner->Subscribe(0);
  auto replay = testing::ReadReady(*whole);
  EXPECT_EQ(replay.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(replay.status().message()), HasSubstr(row));
  EXPECT_TRUE(runner->Estimate(Plan("")).ok());

  // Every write is refused with the same specific error, and sends nothing.
  const size_t requests = Requests();
  const std::string refusal =
      absl::StrCat("session ", id_, " cannot be written: its history could not be read: ", row,
                   ": stored payload does not decode");
  for (const absl::Status& s : TryEveryWrite(*runner)) {
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(refusal));
  }
  EXPECT_EQ(runner->CheckWritable().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(runner->running());
  EXPECT_EQ(Requests(), requests);
  EXPECT_EQ(store_->GetSession(id_)->last_seq, last_seq);

  // Repaired, every row is as it was: nothing was changed or removed.
  ASSERT_TRUE(testing::ReplaceEventPayload(path_, id_, bad, *original).ok());
  EXPECT_EQ(testing::AllStoredRows(path_).value(), *before);

  // The next write retries, succeeds, and the conversation goes on.
  RunTurn(*runner, "three", "third answer");
  EXPECT_TRUE(runner->recovered());
  std::lock_guard<std::mutex> lock(book_->mu);
  ASSERT_EQ(book_->requests.size(), requests + 1);
  EXPECT_EQ(book_->requests.back().messages.size(), 5u);
}

// A turn a crash left open with a call that has no result, and a damaged row
// inside it: nothing is recorded while the row does not read; once it does,
// the turn is closed first, in the store and in a context a read loaded
// meanwhile, so the next request is valid.
TEST_F(DamagedRowRunnerTest, AnUnfinishedTurnIsClosedOnlyOnceItsHistoryReads) {
  store::CommitBatch batch;
  const std::string turn = "turn_crashed";
  std::vector<events::EventPayload> payloads = {
      events::TurnStarted{"go"}, events::UserMessage{"go"}, events::AssistantMessage{"calling", ""},
      events::ToolCallBatch{{events::ToolCallInfo{"c1", "echo", "test/echo", "{}"}}}};
  for (size_t i = 0; i < payloads.size(); ++i) {
    batch.events.push_back(events::SessionEvent{id_, i + 1, turn, 1000, payloads[i]});
  }
  batch.context_appends = {events::UserText{"go", events::UserTextKind::kPrompt, turn},
                           events::AssistantTurn{"calling", "", {{"c1", "echo", "{}"}}, {}}};
  ASSERT_TRUE(store_->Commit(id_, batch).ok());
  auto original = testing::ReplaceEventPayload(path_, id_, 3, kBadJson);
  ASSERT_TRUE(original.ok()) << original.status();

  auto runner = NewRunner();
  EXPECT_EQ(runner->RecoverUnfinishedTurn().code(), absl::StatusCode::kDataLoss);
  ASSERT_TRUE(runner->Estimate(Plan("")).ok());  // loads the context
  EXPECT_EQ(harness_->StartTurn(*runner, Plan("next")).code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(store_->GetSession(id_)->last_seq, 4u);

  ASSERT_TRUE(testing::ReplaceEventPayload(path_, id_, 3, *original).ok());
  RunTurn(*runner, "next", "done");
  auto stored = store_->ReadEvents(id_, 4, 2);
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_EQ(stored->size(), 2u);
  const auto& result = std::get<events::ToolResult>((*stored)[0].payload);
  EXPECT_EQ(result.call_id, "c1");
  EXPECT_EQ(result.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(std::get<events::TurnEnded>((*stored)[1].payload).reason,
            events::TurnEndReason::kError);
  std::lock_guard<std::mutex> lock(book_->mu);
  ASSERT_EQ(book_->requests.size(), 1u);
  const auto& messages = book_->requests[0].messages;
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(std::get<events::ToolOutcome>(messages[2]).call_id, "c1");
  EXPECT_EQ(std::get<events::UserText>(messages[3]).text, "next");
}

TEST_F(DamagedRowRunnerTest, ADamagedContextItemRefusesWritesNamingItAndHistoryStillReads) {
  {
    auto runner = NewRunner();
    ASSERT_TRUE(runner->RecoverUnfinishedTurn().ok());
    RunTurn(*runner, "one", "first answer");
  }
  auto original = testing::ReplaceContextPayload(path_, id_, 1, "{\"kind\":\"what\"}");
  ASSERT_TRUE(original.ok()) << original.status();

  auto runner = NewRunner();
  EXPECT_TRUE(runner->RecoverUnfinishedTurn().ok());  // the history reads
  auto sub = runner->Subscribe(0);
  auto history = testing::ReadReady(*sub);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_TRUE(std::holds_alternative<events::TurnEnded>(history->back().payload));
  const std::string row = absl::StrCat("session ", id_, ", context item at position 1");
  auto estimate = runner->Estimate(Plan(""));
  EXPECT_EQ(estimate.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(estimate.status().message()), HasSubstr(row));

  const std::string refusal = absl::StrCat(
      "session ", id_, " cannot be written: its model context could not be read: ", row);
  std::vector<absl::Status> writes = {harness_->StartTurn(*runner, Plan("two")),
                                      harness_->StartCompaction(*runner, Plan("")),
                                      harness_->Clear(*runner, Plan("")).status()};
  for (const absl::Status& s : writes) {
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(refusal));
  }
  EXPECT_EQ(Requests(), 1u);

  ASSERT_TRUE(testing::ReplaceContextPayload(path_, id_, 1, *original).ok());
  RunTurn(*runner, "two", "second answer");
  std::lock_guard<std::mutex> lock(book_->mu);
  ASSERT_EQ(book_->requests.size(), 2u);
  EXPECT_EQ(book_->requests[1].messages.size(), 3u);
}

}  // namespace
}  // namespace raw::loop
