// Sessions end to end: one writer per session, history paging, expiry, old
// databases, the context estimate, stats and runtime changes, through a
// real rawd over gRPC.
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/e2e/lease_holder.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::AllOf;
using ::testing::HasSubstr;

class SessionsTest : public ContractTest {
 protected:
  void Turn(const std::string& session, const std::string& text,
            testing::ScriptedResponse answer) {
    fake_.Enqueue(std::move(answer));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, text);
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value()) << "stream ended: " << stream.status().error_code() << " "
                                 << stream.status().error_message();
    ASSERT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
        << end->turn_ended().message();
  }

  raw::v1::Session GetSession(const std::string& session, bool without_context = false) {
    raw::v1::GetSessionRequest req;
    req.set_session_id(session);
    req.set_without_context(without_context);
    raw::v1::GetSessionResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().GetSession(&ctx, req, &resp);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return resp.session();
  }

  grpc::Status Start(const std::string& session, const std::string& text,
                     const std::string& lease) {
    raw::v1::StartTurnRequest req;
    req.set_session_id(session);
    req.set_text(text);
    req.set_lease_id(lease);
    raw::v1::StartTurnResponse resp;
    grpc::ClientContext ctx;
    return stub().StartTurn(&ctx, req, &resp);
  }

  // Polls `done` until it holds: a bounded wait for a state another thread
  // or process changes, not a sleep standing in for an event.
  static bool Eventually(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::yield();
    }
    return done();
  }

  std::string DatabasePath() const { return daemon_->state_dir() + "/sessions-v1.sqlite3"; }
};

TEST_F(SessionsTest, OneWriterPerSessionOthersReadAndWatch) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  LeaseHolder editor(stub(), session, "editor (pid 1)");
  ASSERT_FALSE(editor.lease_id().empty());
  EXPECT_EQ(GetSession(session).writer(), "editor (pid 1)");

  // Another client's writes are refused with the holder's name...
  grpc::Status refused = Start(session, "hi", "");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("editor (pid 1)"));
  {
    raw::v1::CompactRequest req;
    req.set_session_id(session);
    raw::v1::CompactResponse resp;
    grpc::ClientContext ctx;
    EXPECT_THAT(stub().Compact(&ctx, req, &resp).error_message(), HasSubstr("editor (pid 1)"));
  }
  {
    raw::v1::ClearContextRequest req;
    req.set_session_id(session);
    raw::v1::ClearContextResponse resp;
    grpc::ClientContext ctx;
    EXPECT_THAT(stub().ClearContext(&ctx, req, &resp).error_message(),
                HasSubstr("editor (pid 1)"));
  }
  {
    raw::v1::RespondToApprovalRequest req;
    req.set_session_id(session);
    req.set_request_id("req_x");
    req.set_all(raw::v1::APPROVAL_DECISION_ALLOW_ONCE);
    raw::v1::RespondToApprovalResponse resp;
    grpc::ClientContext ctx;
    EXPECT_THAT(stub().RespondToApproval(&ctx, req, &resp).error_message(),
                HasSubstr("editor (pid 1)"));
  }
  LeaseHolder second(stub(), session, "browser");
  EXPECT_TRUE(second.lease_id().empty());
  EXPECT_THAT(second.Close().error_message(), HasSubstr("editor (pid 1)"));

  // ...while it can still watch the holder's turn live and read history.
  EventStream watcher(stub(), session);
  fake_.Enqueue(chat::TextAnswer("hello"));
  raw::v1::StartTurnRequest req;
  req.set_session_id(session);
  req.set_text("from the editor");
  req.set_lease_id(editor.lease_id());
  raw::v1::StartTurnResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().StartTurn(&ctx, req, &resp).ok());
  ASSERT_TRUE(watcher.WaitForTurnEnd(resp.turn_id()).has_value());

  // Disconnecting releases the lease; then a one-shot write goes through.
  editor.Close();
  ASSERT_TRUE(Eventually([&] { return GetSession(session).writer().empty(); }));
  Turn(session, "now me", chat::TextAnswer("ok"));
}

TEST_F(SessionsTest, AHandoverIsAskedForAndGrantedOnlyWhenTheHolderLetsGo) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  LeaseHolder terminal(stub(), session, "raw (pid 7)");
  ASSERT_FALSE(terminal.lease_id().empty());
  raw::v1::Session held = GetSession(session);
  EXPECT_EQ(held.writer_holder().client_name(), "raw (pid 7)");
  EXPECT_EQ(held.writer_holder().client_kind(), "test client");
  EXPECT_EQ(held.writer_holder().client_pid(), 4242);
  EXPECT_GT(held.writer_holder().since_unix_ms(), 0);

  // Without asking for a handover the refusal names the holder in full.
  LeaseHolder refused(stub(), session, "dashboard");
  EXPECT_TRUE(refused.lease_id().empty());
  EXPECT_THAT(refused.Close().error_message(),
              AllOf(HasSubstr("\"raw (pid 7)\""), HasSubstr("test client"), HasSubstr("pid 4242"),
                    HasSubstr("since ")));

  // Asking: the asker waits, the holder is told, nothing is taken.
  LeaseHolder browser(stub(), session, "dashboard", /*request_handover=*/true);
  ASSERT_TRUE(browser.first().has_waiting());
  EXPECT_EQ(browser.first().waiting().holder().client_name(), "raw (pid 7)");
  raw::v1::LeaseEvent asked;
  ASSERT_TRUE(terminal.Next(&asked));
  ASSERT_TRUE(asked.has_handover_requested());
  EXPECT_EQ(asked.handover_requested().requester().client_name(), "dashboard");
  EXPECT_EQ(GetSession(session).writer(), "raw (pid 7)");
  fake_.Enqueue(chat::TextAnswer("still mine"));
  ASSERT_TRUE(Start(session, "hi", terminal.lease_id()).ok());

  // The holder lets go: the asker is granted the lease, the old id is dead.
  EXPECT_TRUE(terminal.Close().ok() || terminal.Close().error_code() == grpc::CANCELLED);
  raw::v1::LeaseEvent granted;
  ASSERT_TRUE(browser.Next(&granted));
  ASSERT_TRUE(granted.has_granted());
  EXPECT_EQ(GetSession(session).writer(), "dashboard");
  grpc::Status stale = Start(session, "hi", terminal.lease_id());
  EXPECT_EQ(stale.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(stale.error_message(), HasSubstr("\"dashboard\""));
}

TEST_F(SessionsTest, AHolderThatDeclinesKeepsTheLeaseAndTheAskerIsTold) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  LeaseHolder terminal(stub(), session, "raw (pid 7)");
  ASSERT_FALSE(terminal.lease_id().empty());
  LeaseHolder browser(stub(), session, "dashboard", /*request_handover=*/true);
  ASSERT_TRUE(browser.first().has_waiting());
  raw::v1::LeaseEvent asked;
  ASSERT_TRUE(terminal.Next(&asked));

  // Only the holder can decline.
  {
    raw::v1::DeclineHandoverRequest req;
    req.set_session_id(session);
    req.set_lease_id("lease_of_someone_else");
    raw::v1::DeclineHandoverResponse resp;
    grpc::ClientContext ctx;
    EXPECT_EQ(stub().DeclineHandover(&ctx, req, &resp).error_code(),
              grpc::StatusCode::FAILED_PRECONDITION);
  }
  raw::v1::DeclineHandoverRequest req;
  req.set_session_id(session);
  req.set_lease_id(terminal.lease_id());
  raw::v1::DeclineHandoverResponse resp;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().DeclineHandover(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.declined(), 1);
  raw::v1::LeaseEvent none;
  EXPECT_FALSE(browser.Next(&none));
  grpc::Status ended = browser.Close();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(ended.error_message(), HasSubstr("kept the lease"));
  EXPECT_EQ(GetSession(session).writer(), "raw (pid 7)");
  fake_.Enqueue(chat::TextAnswer("mine"));
  EXPECT_TRUE(Start(session, "hi", terminal.lease_id()).ok());
}

TEST_F(SessionsTest, AKilledHoldersLeaseEndsAtOnceAndAnotherClientGetsIt) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  // `raw run` holds the lease for its whole run; its answer is held back.
  testing::ScriptedResponse held = chat::TextAnswer("never seen");
  held.gate_before_chunk = 0;
  fake_.Enqueue(held);
  EventStream stream(stub(), session);
  std::vector<std::string> argv = {BinaryPath("raw"), "run", "--session", session, "wait"};
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> env_text;
  for (const auto& [k, v] : daemon_->env()) env_text.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t raw_run = -1;
  ASSERT_EQ(posix_spawn(&raw_run, args[0], nullptr, nullptr, args.data(), envp.data()), 0);
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_turn_started(); }));
  ASSERT_TRUE(fake_.WaitForGate());
  EXPECT_THAT(GetSession(session).writer_holder().client_kind(), HasSubstr("raw run"));

  kill(raw_run, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(raw_run, &status, 0), raw_run);
  // Asking for the lease now: granted as soon as the daemon has seen the
  // killed client's connection close, well within a second.
  const auto asked = std::chrono::steady_clock::now();
  LeaseHolder next(stub(), session, "next client", /*request_handover=*/true);
  raw::v1::LeaseEvent granted = next.first();
  if (granted.has_waiting()) {
    ASSERT_TRUE(next.Next(&granted));
  }
  ASSERT_TRUE(granted.has_granted());
  const auto waited = std::chrono::steady_clock::now() - asked;
  std::printf("lease granted %lld ms after the holder was killed\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()));
  EXPECT_LT(waited, std::chrono::seconds(1));
  // The new holder can interrupt the orphaned turn.
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session);
  req.set_lease_id(next.lease_id().empty() ? granted.granted().lease_id() : next.lease_id());
  raw::v1::InterruptTurnResponse resp;
  grpc::ClientContext ctx;
  EXPECT_TRUE(stub().InterruptTurn(&ctx, req, &resp).ok());
  fake_.ReleaseGate();
  EXPECT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_turn_ended(); }));
}

TEST_F(SessionsTest, HistoryPagesInBothDirectionsWithCursorsThatSurviveAppends) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  for (int i = 0; i < 3; ++i) Turn(session, absl::StrCat("turn ", i), chat::TextAnswer("a"));
  auto page = [&](const std::string& cursor, raw::v1::HistoryDirection dir) {
    raw::v1::GetHistoryRequest req;
    req.set_session_id(session);
    req.set_cursor(cursor);
    req.set_limit(4);
    req.set_direction(dir);
    raw::v1::GetHistoryResponse resp;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().GetHistory(&ctx, req, &resp).ok());
    return resp;
  };
  std::vector<uint64_t> forward;
  raw::v1::GetHistoryResponse first = page("", raw::v1::HISTORY_DIRECTION_FORWARD);
  for (const auto& e : first.events()) forward.push_back(e.seq());
  // New items arrive between pages; the cursor still continues in place.
  Turn(session, "appended", chat::TextAnswer("b"));
  std::string cursor = first.next_cursor();
  while (!cursor.empty()) {
    raw::v1::GetHistoryResponse next = page(cursor, raw::v1::HISTORY_DIRECTION_FORWARD);
    for (const auto& e : next.events()) forward.push_back(e.seq());
    cursor = next.next_cursor();
  }
  std::vector<uint64_t> backward;
  cursor = "";
  do {
    raw::v1::GetHistoryResponse prev = page(cursor, raw::v1::HISTORY_DIRECTION_BACKWARD);
    for (const auto& e : prev.events()) backward.push_back(e.seq());
    cursor = prev.next_cursor();
  } while (!cursor.empty());
  ASSERT_GT(forward.size(), 8u);
  EXPECT_TRUE(std::is_sorted(forward.begin(), forward.end()));
  EXPECT_EQ(std::adjacent_find(forward.begin(), forward.end()), forward.end());
  std::reverse(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
}

TEST_F(SessionsTest, ExpiredSessionsAreRemovedReadingNeverRenewsAndSpaceIsReclaimed) {
  StartDaemon("", R"("sessions": {"expire_after_days": 30})");
  std::string old_session = daemon_->CreateSession();
  std::string big;
  for (int i = 0; i < 20000; ++i) big += "bulk text ";
  Turn(old_session, "old", chat::TextAnswer(big));
  std::string kept = daemon_->CreateSession();
  Turn(kept, "recent", chat::TextAnswer("a"));

  raw::v1::Session before = GetSession(old_session);
  EXPECT_EQ(before.expires_at_unix_ms(),
            before.last_activity_unix_ms() + int64_t{30} * 24 * 3600 * 1000);
  // Reading and listing do not renew.
  {
    raw::v1::ListSessionsRequest req;
    raw::v1::ListSessionsResponse resp;
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub().ListSessions(&ctx, req, &resp).ok());
    for (const auto& s : resp.sessions()) EXPECT_GT(s.expires_at_unix_ms(), 0);
  }
  EXPECT_EQ(GetSession(old_session).last_activity_unix_ms(), before.last_activity_unix_ms());
  ASSERT_EQ(daemon_->Stop(), 0);

  // Forty days of silence for one session.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(DatabasePath().c_str(), &db), SQLITE_OK);
  std::string sql = absl::StrCat(
      "UPDATE sessions SET last_activity_at = last_activity_at - ",
      int64_t{40} * 24 * 3600 * 1000, " WHERE id = '", old_session, "'");
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  struct stat st_before;
  ASSERT_EQ(stat(DatabasePath().c_str(), &st_before), 0);

  ASSERT_TRUE(daemon_->Start().ok());
  raw::v1::GetSessionRequest req;
  req.set_session_id(old_session);
  raw::v1::GetSessionResponse resp;
  grpc::ClientContext ctx;
  EXPECT_EQ(stub().GetSession(&ctx, req, &resp).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GetSession(kept).id(), kept);
  struct stat st_after;
  ASSERT_EQ(stat(DatabasePath().c_str(), &st_after), 0);
  EXPECT_LT(st_after.st_size, st_before.st_size - 100000);
  EXPECT_THAT(daemon_->ReadLog(), HasSubstr("expired"));
}

std::string ExportedBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(SessionsTest, AnOlderDatabaseIsLeftByteForByteAndReportedOnce) {
  StartDaemon("");
  ASSERT_EQ(daemon_->Stop(), 0);
  // An older generation's file, a real SQLite database.
  std::string old_path = daemon_->state_dir() + "/sessions.sqlite3";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(old_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE conversations (id TEXT, body TEXT);"
                             "INSERT INTO conversations VALUES ('a', 'old data');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string bytes = ExportedBytes(old_path);
  struct stat st_old;
  ASSERT_EQ(stat(old_path.c_str(), &st_old), 0);

  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE(daemon_->Start().ok());
    std::string session = daemon_->CreateSession();
    Turn(session, "hello", chat::TextAnswer("hi"));
    ASSERT_EQ(daemon_->Stop(), 0);
  }
  EXPECT_EQ(ExportedBytes(old_path), bytes);
  struct stat st_now;
  ASSERT_EQ(stat(old_path.c_str(), &st_now), 0);
  EXPECT_EQ(st_now.st_mtim.tv_sec, st_old.st_mtim.tv_sec);
  EXPECT_EQ(st_now.st_mtim.tv_nsec, st_old.st_mtim.tv_nsec);
  std::string log = daemon_->ReadLog();
  size_t first = log.find(old_path);
  ASSERT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find(old_path, first + 1), std::string::npos) << "said more than once";
}

TEST_F(SessionsTest, TheEstimateUsesTheReportedBaselineAndAPercentOnlyWithAWindow) {
  StartDaemon("", "", R"(["builtin/*"])", R"("context_window_tokens": 10000)");
  std::string session = daemon_->CreateSession();
  raw::v1::Session fresh = GetSession(session);
  ASSERT_TRUE(fresh.has_context());
  EXPECT_GT(fresh.context().tokens(), 0);  // system prompt and tools, estimated
  EXPECT_FALSE(fresh.context().reported_baseline());

  fake_.Enqueue(chat::TextAnswer("four", {1200, 300, std::nullopt}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "hi");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  raw::v1::Session after = GetSession(session);
  EXPECT_EQ(after.context().tokens(), 1500);
  EXPECT_TRUE(after.context().reported_baseline());
  EXPECT_EQ(after.context().window_tokens(), 10000);
  EXPECT_DOUBLE_EQ(after.context().percent(), 15.0);
  // The baseline survives a daemon restart.
  ASSERT_EQ(daemon_->Stop(), 0);
  ASSERT_TRUE(daemon_->Start().ok());
  EXPECT_EQ(GetSession(session).context().tokens(), 1500);
}

// A client drawing its first screen asks without the estimate: a session
// the daemon has not loaded since it started is answered from its row, and
// the estimate comes with the next read that asks for it.
TEST_F(SessionsTest, WithoutContextAnUnloadedSessionIsAnsweredWithoutTheEstimate) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  Turn(session, "hi", chat::TextAnswer("a", {100, 10, std::nullopt}));
  auto without_context = [&] { return GetSession(session, /*without_context=*/true); };
  // Loaded (it just ran a turn): the estimate comes anyway.
  EXPECT_EQ(without_context().context().tokens(), 110);
  ASSERT_EQ(daemon_->Stop(), 0);
  ASSERT_TRUE(daemon_->Start().ok());
  for (int i = 0; i < 2; ++i) {
    raw::v1::Session light = without_context();
    EXPECT_EQ(light.id(), session);
    EXPECT_EQ(light.usage().input_tokens(), 100);
    EXPECT_FALSE(light.has_context()) << "read " << i;
  }
  EXPECT_EQ(GetSession(session).context().tokens(), 110);
  EXPECT_EQ(without_context().context().tokens(), 110);
}

TEST_F(SessionsTest, NoPercentWithoutAWindow) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  Turn(session, "hi", chat::TextAnswer("a", {100, 10, std::nullopt}));
  raw::v1::Session s = GetSession(session);
  EXPECT_EQ(s.context().tokens(), 110);
  EXPECT_FALSE(s.context().has_window_tokens());
  EXPECT_FALSE(s.context().has_percent());
}

TEST_F(SessionsTest, StatsCountCoveragePerFieldAndNeverShowZeroForUnknown) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  Turn(session, "one", chat::TextAnswer("a", {100, 10, std::nullopt}));
  auto stats = [&] {
    raw::v1::GetStatsRequest req;
    req.set_session_id(session);
    raw::v1::GetStatsResponse resp;
    grpc::ClientContext ctx;
    EXPECT_TRUE(stub().GetStats(&ctx, req, &resp).ok());
    return resp;
  };
  raw::v1::GetStatsResponse first = stats();
  EXPECT_EQ(first.requests(), 1);
  EXPECT_EQ(first.input_tokens().total(), 100);
  EXPECT_EQ(first.input_tokens().requests_reported(), 1);
  EXPECT_FALSE(first.cache_read_tokens().has_total());  // unknown, not zero
  EXPECT_EQ(first.cache_read_tokens().requests_reported(), 0);
  EXPECT_FALSE(first.has_cache_read_ratio());

  Turn(session, "two", chat::TextAnswer("b", {200, 10, 150}));
  raw::v1::GetStatsResponse second = stats();
  EXPECT_EQ(second.requests(), 2);
  EXPECT_EQ(second.input_tokens().total(), 300);
  EXPECT_EQ(second.cache_read_tokens().total(), 150);
  EXPECT_EQ(second.cache_read_tokens().requests_reported(), 1);
  // Only the request that reported both counts: 150 / 200.
  EXPECT_DOUBLE_EQ(second.cache_read_ratio(), 0.75);
  EXPECT_EQ(second.cache_ratio_requests(), 1);
}

// A request that streamed its usage and was then cut off (retryable) is
// retried; both requests count in the totals, with the tokens each reported.
TEST_F(SessionsTest, ARetriedRequestCountsInTheStats) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse cut =
      chat::Stream({chat::RoleChunk(), chat::TextChunk("par"), chat::UsageChunk(100, 5)});
  cut.end = testing::ScriptedResponse::End::kCut;
  fake_.Enqueue(cut);
  Turn(session, "one", chat::TextAnswer("a", {200, 10, std::nullopt}));
  ASSERT_EQ(fake_.requests().size(), 2u);

  raw::v1::GetStatsRequest req;
  req.set_session_id(session);
  raw::v1::GetStatsResponse stats;
  grpc::ClientContext ctx;
  ASSERT_TRUE(stub().GetStats(&ctx, req, &stats).ok());
  EXPECT_EQ(stats.requests(), 2);
  EXPECT_EQ(stats.input_tokens().total(), 300);
  EXPECT_EQ(stats.input_tokens().requests_reported(), 2);
  EXPECT_EQ(stats.output_tokens().total(), 15);
}

TEST_F(SessionsTest, ChangedToolsChangeTheCacheKeyOnceAndTheConversationGoesOn) {
  StartDaemon("");
  std::string session = daemon_->CreateSession();
  Turn(session, "one", chat::TextAnswer("a"));
  Turn(session, "two", chat::TextAnswer("b"));
  // The user narrows the agent's tools.
  std::ofstream(daemon_->config_path())
      << Config("", "", R"(["builtin/read_file", "builtin/list_dir"])", "");
  EventStream stream(stub(), session);
  fake_.Enqueue(chat::TextAnswer("c"));
  std::string turn = StartTurn(stub(), session, "three");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  Turn(session, "four", chat::TextAnswer("d"));

  std::vector<std::string> keys;
  for (const auto& r : fake_.requests()) keys.push_back((*r.BodyJson())["prompt_cache_key"]);
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[0], keys[1]);
  EXPECT_NE(keys[1], keys[2]);
  EXPECT_EQ(keys[2], keys[3]);
  // The history before the change is untouched and the request continues it.
  Json third = *fake_.requests()[2].BodyJson();
  EXPECT_EQ(third["tools"].size(), 2u);
  EXPECT_EQ(third["messages"][1]["content"], "one");
  std::string notice;
  for (const auto& e : stream.TurnEvents(turn)) {
    if (e.has_notice()) notice = e.notice().text();
  }
  EXPECT_THAT(notice, HasSubstr("tools available to the model changed"));
  EXPECT_THAT(notice, HasSubstr("removed: "));
  EXPECT_THAT(notice, HasSubstr("bash"));
}

}  // namespace
}  // namespace raw::e2e

namespace raw::e2e {
namespace {

TEST_F(SessionsTest, ASecretVariableNeverReachesTheDatabaseOrTheLog) {
  const std::string secret = "sk-test-0123456789abcdef";
  std::string key_file = scratch_ + "/key.txt";
  WriteFile(key_file, secret + "\n");
  // The key comes from a file variable; a tool prints it.
  std::string config = absl::StrReplaceAll(
      Config(R"("approval_mode": "allow_all")",
             absl::StrCat(R"("variables": {"KEY": {"file": ")", key_file, R"("}})"),
             R"(["builtin/bash"])", R"("api_key": "${KEY}", "headers": {"X-Team": "t-${KEY}"})"),
      {{R"("api_key_env": "RAW_TEST_KEY", )", ""}});
  daemon_ = std::make_unique<TestDaemon>(config);
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", absl::StrCat(R"({"command":"cat )", key_file, R"("})")}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "show me the key");
  auto end = stream.WaitForTurnEnd(turn);
  ASSERT_TRUE(end.has_value());
  ASSERT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
      << end->turn_ended().message();

  // The key was used where it belongs: the provider's headers.
  testing::RecordedRequest first = fake_.requests()[0];
  EXPECT_EQ(first.Header("Authorization"), "Bearer " + secret);
  EXPECT_EQ(first.Header("X-Team"), "t-" + secret);
  // The tool's output was redacted before it was stored or sent on.
  std::vector<raw::v1::ToolResult> results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_THAT(results[0].content(), HasSubstr("[redacted]"));
  EXPECT_THAT(fake_.requests()[1].body, ::testing::Not(HasSubstr(secret)));

  ASSERT_EQ(daemon_->Stop(), 0);
  for (const std::string& path :
       {DatabasePath(), DatabasePath() + "-wal", daemon_->state_dir() + "/rawd.log"}) {
    std::string bytes = ExportedBytes(path);
    EXPECT_EQ(bytes.find(secret), std::string::npos) << path;
  }
}

}  // namespace
}  // namespace raw::e2e

namespace raw::e2e {
namespace {

TEST_F(SessionsTest, ASkillChangedWhileTheDaemonWasDownGetsAReloadNoticeAndKeepsTheKey) {
  std::string skills = scratch_ + "/skills";
  WriteFile(skills + "/review/SKILL.md",
            "---\nname: review\ndescription: How to review\n---\nStep 1: read the diff.\n");
  StartDaemon(R"("skills": ["review"], "approval_mode": "allow_all")",
              absl::StrCat(R"("skill_dirs": [")", skills, R"("])"));
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "load_skill", R"({"name":"review"})"}}));
  fake_.Enqueue(chat::TextAnswer("loaded"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "review my change");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  // The daemon stops; the skill's text changes meanwhile.
  ASSERT_EQ(daemon_->Stop(), 0);
  WriteFile(skills + "/review/SKILL.md",
            "---\nname: review\ndescription: How to review\n---\nStep 1: run the tests.\n");
  ASSERT_TRUE(daemon_->Start().ok());
  Turn(session, "next", chat::TextAnswer("ok"));
  Json first = *fake_.requests()[0].BodyJson();
  Json last = *fake_.requests().back().BodyJson();
  std::string user = last["messages"].back()["content"];
  EXPECT_THAT(user, HasSubstr("\"review\" has changed"));
  EXPECT_EQ(last["prompt_cache_key"], first["prompt_cache_key"]);
  EXPECT_EQ(last["messages"][1], first["messages"][1]);  // history not rewritten
}

}  // namespace
}  // namespace raw::e2e
