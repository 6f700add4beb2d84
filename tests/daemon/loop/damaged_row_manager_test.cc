// SessionManager with a damaged stored row, as the daemon sees it after a
// restart: the session stays readable (record, listing, stats, history
// pages without the row, live events), every write is refused naming the
// row, other sessions are untouched, and repairing the row lets writes
// resume without a restart. A real SQLite store in a temp dir; the model
// answers through a scripted HTTP client.
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "daemon/loop/session_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/stored_rows.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/sse_builders.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;
namespace chat = raw::testing::chat;

constexpr char kConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake": { "provider": "openai", "method": "openai-chat-completions", "model_id": "gpt-test",
              "base_url": "http://127.0.0.1:9/v1", "api_key_env": "RAW_TEST_KEY" }
  },
  "agents": { "coder": { "model": "fake", "max_steps": 3, "tools": { "use": [] },
                         "approval_mode": "allow_all" } }
})";

class DamagedRowManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rawdamagedmgr.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/sessions.sqlite3";
    std::ofstream(dir_ + "/config.json") << kConfig;
    auto store = store::SessionStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    Restart();
  }
  void TearDown() override {
    manager_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A new manager on the same store, as after a daemon restart.
  void Restart() {
    if (manager_ != nullptr) manager_->Shutdown();
    manager_.reset();
    leases_.clear();
    manager_ = std::make_unique<SessionManager>(SessionManagerDeps{
        .store = *store_,
        .http = http_,
        .tools = tools_,
        .clock = clock_,
        .env = [](const std::string& name) -> std::optional<std::string> {
          if (name == "RAW_TEST_KEY") return "sk-test";
          return std::nullopt;
        },
        .config_path = dir_ + "/config.json",
        .probe = [](const std::string&) { return false; },
    });
  }

  // The session's write lease, acquired once per manager.
  std::string LeaseFor(const std::string& session) {
    auto it = leases_.find(session);
    if (it != leases_.end()) return it->second;
    auto acquired = testing::Await<WriteLeases::Acquired>(
        [&](Reply<WriteLeases::Acquired> reply) {
          manager_->AcquireLease(session, LeaseClient{"test", "test", 0}, WhenHeld::kRefuse, {},
                                 [reply](absl::StatusOr<WriteLeases::Acquired> a) {
                                   reply(std::move(a));
                                   return true;
                                 });
        });
    EXPECT_TRUE(acquired.ok()) << acquired.status();
    if (!acquired.ok()) return "";
    return leases_[session] = acquired->lease_id;
  }
  absl::StatusOr<std::string> StartTurn(const std::string& session, const std::string& text) {
    const std::string lease = LeaseFor(session);
    return testing::Await<std::string>(
        [&](Reply<std::string> reply) { manager_->StartTurn(session, text, lease, reply); });
  }

  std::string NewSession() {
    auto info = testing::Await<SessionInfo>(
        [&](Reply<SessionInfo> reply) { manager_->CreateSession("", dir_, "", {}, reply); });
    EXPECT_TRUE(info.ok()) << info.status();
    return info.ok() ? info->record.id : "";
  }

  // A full turn answered with `answer`.
  void Turn(const std::string& session, const std::string& text, const std::string& answer) {
    raw::testing::FakeHttpResponse response;
    response.chunks = {chat::RoleChunk(), chat::TextChunk(answer), chat::FinishChunk("stop"),
                       chat::UsageChunk(12, 4), chat::Done()};
    http_.Enqueue(response);
    auto sub = manager_->Subscribe(session, store_->GetSession(session)->last_seq);
    ASSERT_TRUE(sub.ok()) << sub.status();
    auto turn = StartTurn(session, text);
    ASSERT_TRUE(turn.ok()) << turn.status();
    auto events = testing::ReadUntilTurnEnds(**sub, *turn);
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_EQ(std::get<events::TurnEnded>(events->back().payload).reason,
              events::TurnEndReason::kCompleted);
  }

  // How many stored events of `session` come before `seq` (stored seqs have
  // holes where live-only events were).
  int StoredBefore(const std::string& session, uint64_t seq) {
    auto stored = store_->ReadEvents(session, 0, 1000);
    EXPECT_TRUE(stored.ok()) << stored.status();
    int n = 0;
    for (const auto& e : *stored) n += e.seq < seq ? 1 : 0;
    return n;
  }

  uint64_t SeqOfAnswer(const std::string& session, const std::string& text) {
    auto stored = store_->ReadEvents(session, 0, 1000);
    EXPECT_TRUE(stored.ok()) << stored.status();
    for (const auto& e : *stored) {
      const auto* m = std::get_if<events::AssistantMessage>(&e.payload);
      if (m != nullptr && m->text == text) return e.seq;
    }
    ADD_FAILURE() << "no answer " << text;
    return 0;
  }

  std::string dir_, path_;
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  std::unique_ptr<SessionManager> manager_;
  std::map<std::string, std::string> leases_;  // by session, for manager_
};

TEST_F(DamagedRowManagerTest, ADamagedEventLeavesTheSessionReadableAndRefusesItsWrites) {
  const std::string damaged = NewSession();
  const std::string healthy = NewSession();
  Turn(damaged, "one", "first answer");
  Turn(damaged, "two", "second answer");
  Turn(healthy, "hello", "hi");
  const uint64_t bad = SeqOfAnswer(damaged, "second answer");
  const int before_bad = StoredBefore(damaged, bad);
  Restart();
  auto before = testing::AllStoredRows(path_);
  ASSERT_TRUE(before.ok()) << before.status();
  auto original = testing::ReplaceEventPayload(path_, damaged, bad, "{\"text\": 3");
  ASSERT_TRUE(original.ok()) << original.status();
  const std::string row = absl::StrCat("session ", damaged, ", event seq ", bad);

  // Reading: the record with its estimate, the listing, the stats.
  auto info = manager_->GetSession(damaged);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->context.has_value());
  std::string next_token;
  auto listed = manager_->ListSessions(10, "", &next_token);
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 2u);
  EXPECT_TRUE(manager_->GetStats(damaged).ok());

  // History: the pages before the row and after it read; the one holding it
  // fails, naming it.
  auto first = manager_->GetHistory(damaged, "", before_bad, store::HistoryDirection::kForward);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_LT(first->events.back().seq, bad);
  auto holding =
      manager_->GetHistory(damaged, first->next_cursor, 10, store::HistoryDirection::kForward);
  EXPECT_EQ(holding.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(holding.status().message()), HasSubstr(row));
  auto newest = manager_->GetHistory(damaged, "", 1, store::HistoryDirection::kBackward);
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_TRUE(std::holds_alternative<events::TurnEnded>(newest->events.at(0).payload));
  auto sub = manager_->Subscribe(damaged, bad);
  ASSERT_TRUE(sub.ok()) << sub.status();
  auto live = testing::ReadReady(**sub);
  ASSERT_TRUE(live.ok()) << live.status();
  EXPECT_FALSE(live->empty());

  // The lease is granted; every write is refused, naming the row.
  const std::string lease = LeaseFor(damaged);
  ASSERT_FALSE(lease.empty());
  const size_t requests = http_.requests().size();
  const std::string refusal =
      absl::StrCat("session ", damaged, " cannot be written: its history could not be read: ", row);
  std::vector<absl::Status> writes = {
      StartTurn(damaged, "three").status(),
      testing::Await<std::string>([&](Reply<std::string> reply) {
        manager_->Compact(damaged, lease, reply);
      }).status(),
      testing::Await<events::ContextEstimate>([&](Reply<events::ContextEstimate> reply) {
        manager_->ClearContext(damaged, lease, reply);
      }).status(),
      testing::Await<bool>([&](Reply<bool> reply) {
        manager_->RespondToApproval(
            damaged, "approval_1", {},
            events::ApprovalAnswer{"", events::ApprovalDecision::kAllowOnce, ""}, lease,
            [reply](absl::Status s) { s.ok() ? reply(true) : reply(s); });
      }).status()};
  for (const absl::Status& s : writes) {
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(refusal));
  }
  EXPECT_EQ(http_.requests().size(), requests);

  // Another session of the same database works as ever.
  Turn(healthy, "again", "hi again");

  // Nothing of the damaged session was changed or removed; once the row
  // reads again, its writes resume.
  ASSERT_TRUE(testing::ReplaceEventPayload(path_, damaged, bad, *original).ok());
  auto after = testing::AllStoredRows(path_);
  ASSERT_TRUE(after.ok()) << after.status();
  auto of_damaged = [&](const std::map<std::string, std::string>& rows) {
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : rows) {
      if (key.find(damaged) != std::string::npos) out[key] = value;
    }
    return out;
  };
  EXPECT_EQ(of_damaged(*after), of_damaged(*before));
  Turn(damaged, "three", "third answer");
}

TEST_F(DamagedRowManagerTest, ADamagedContextItemOnlyHidesTheEstimateAndRefusesWrites) {
  const std::string session = NewSession();
  Turn(session, "one", "first answer");
  Restart();
  auto original = testing::ReplaceContextPayload(path_, session, 0, "{\"kind\":\"what\"}");
  ASSERT_TRUE(original.ok()) << original.status();

  auto info = manager_->GetSession(session);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->context.has_value());
  auto history = manager_->GetHistory(session, "", 100, store::HistoryDirection::kForward);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_TRUE(std::holds_alternative<events::TurnEnded>(history->events.back().payload));

  auto turn = StartTurn(session, "two");
  EXPECT_EQ(turn.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(turn.status().message()),
              HasSubstr(absl::StrCat("session ", session,
                                     " cannot be written: its model context could not be read: "
                                     "session ",
                                     session, ", context item at position 0")));

  ASSERT_TRUE(testing::ReplaceContextPayload(path_, session, 0, *original).ok());
  Turn(session, "two", "second answer");
  EXPECT_TRUE(manager_->GetSession(session)->context.has_value());
}

}  // namespace
}  // namespace raw::loop
