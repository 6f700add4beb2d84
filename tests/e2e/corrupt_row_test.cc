// A damaged row in the session database, end to end: rawd is stopped, one
// stored row of a session is overwritten with bytes that do not decode (as
// a damaged disk or another program could leave it), and rawd is started
// again. The session stays readable except for the damaged row, which errors
// name; its writes are refused naming the row; another session in the same
// database works as ever; and no row is changed or removed.
#include <sqlite3.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// Every row of the database at `path` with all its columns, keyed by table
// and primary key; the record of `skip_session` is left out.
std::map<std::string, std::string> AllRows(const std::string& path,
                                           const std::string& skip_session) {
  std::map<std::string, std::string> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const struct {
    const char* prefix;
    const char* sql;
  } tables[] = {
      {"session", "SELECT id, * FROM sessions"},
      {"event", "SELECT session_id || ' ' || seq, * FROM events"},
      {"context", "SELECT session_id || ' ' || position, * FROM context_items"},
  };
  for (const auto& table : tables) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, table.sql, -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::string key = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
      if (std::string(table.prefix) == "session" && key == skip_session) continue;
      std::string value;
      for (int i = 1; i < sqlite3_column_count(stmt); ++i) {
        const void* bytes = sqlite3_column_blob(stmt, i);
        int size = sqlite3_column_bytes(stmt, i);
        absl::StrAppend(&value, size, ":",
                        std::string(static_cast<const char*>(bytes), bytes ? size : 0), ";");
      }
      rows[absl::StrCat(table.prefix, " ", key)] = value;
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

// Runs `sql` with the session id bound to ?1; returns the first column of
// the first row as an integer (0 when there is none).
int64_t Query(const std::string& path, const std::string& sql, const std::string& session) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_bind_text(stmt, 1, session.c_str(), -1, SQLITE_TRANSIENT);
  int64_t value = 0;
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) value = sqlite3_column_int64(stmt, 0);
  EXPECT_TRUE(rc == SQLITE_ROW || rc == SQLITE_DONE) << sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

class CorruptRowTest : public E2eTest {
 protected:
  std::string DatabasePath() const { return daemon_->state_dir() + "/sessions-v1.sqlite3"; }

  void Turn(const std::string& session, const std::string& text, const std::string& answer) {
    fake_.Enqueue(chat::TextAnswer(answer));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, text);
    auto end = stream.WaitForTurnEnd(turn);
    ASSERT_TRUE(end.has_value()) << stream.status().error_message();
    EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED)
        << end->turn_ended().message();
  }

  grpc::Status History(const std::string& session, const std::string& cursor, int limit,
                       raw::v1::HistoryDirection direction, raw::v1::GetHistoryResponse* page) {
    raw::v1::GetHistoryRequest req;
    req.set_session_id(session);
    req.set_cursor(cursor);
    req.set_limit(limit);
    req.set_direction(direction);
    grpc::ClientContext ctx;
    return stub().GetHistory(&ctx, req, page);
  }

  grpc::Status Start(const std::string& session, const std::string& text) {
    raw::v1::StartTurnRequest req;
    req.set_session_id(session);
    req.set_text(text);
    req.set_lease_id(LeaseFor(stub(), session));
    raw::v1::StartTurnResponse resp;
    grpc::ClientContext ctx;
    return stub().StartTurn(&ctx, req, &resp);
  }

  grpc::Status GetSession(const std::string& session, raw::v1::Session* out) {
    raw::v1::GetSessionRequest req;
    req.set_session_id(session);
    raw::v1::GetSessionResponse resp;
    grpc::ClientContext ctx;
    grpc::Status s = stub().GetSession(&ctx, req, &resp);
    *out = resp.session();
    return s;
  }

  // Overwrites the payload of one row with bytes that are not valid JSON.
  void Damage(const std::string& table, const std::string& key_column, const std::string& session,
              int64_t key) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(DatabasePath().c_str(), &db), SQLITE_OK);
    std::string sql = absl::StrCat("UPDATE ", table, " SET payload = '{\"text\": 3' WHERE ",
                                   "session_id = '", session, "' AND ", key_column, " = ", key);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    ASSERT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }

  // Stops rawd and checks that every row recorded in `before` is still
  // there, byte for byte.
  void ExpectNothingLost(const std::map<std::string, std::string>& before,
                         const std::string& busy_session) {
    ASSERT_EQ(daemon_->Stop(), 0);
    std::map<std::string, std::string> after = AllRows(DatabasePath(), busy_session);
    for (const auto& [key, value] : before) {
      auto it = after.find(key);
      ASSERT_NE(it, after.end()) << key << " was removed";
      EXPECT_EQ(it->second, value) << key << " was changed";
    }
  }
};

TEST_F(CorruptRowTest, ADamagedEventIsNamedItsSessionStaysReadableAndNothingIsLost) {
  const std::string damaged = daemon_->CreateSession();
  Turn(damaged, "one", "first answer");
  Turn(damaged, "two", "second answer");
  const std::string healthy = daemon_->CreateSession();
  Turn(healthy, "hello", "hi");
  ASSERT_EQ(daemon_->Stop(), 0);

  const int64_t bad = Query(DatabasePath(),
                            "SELECT MAX(seq) FROM events WHERE session_id = ?1 "
                            "AND kind = 'assistant_message'",
                            damaged);
  ASSERT_GT(bad, 0);
  const int64_t before_bad = Query(
      DatabasePath(),
      absl::StrCat("SELECT COUNT(*) FROM events WHERE session_id = ?1 AND seq < ", bad), damaged);
  Damage("events", "seq", damaged, bad);
  // The healthy session's record changes with its next turn; every other
  // row, the damaged one included, must stay as it is.
  const std::map<std::string, std::string> before = AllRows(DatabasePath(), healthy);
  ASSERT_TRUE(daemon_->Start().ok());
  const std::string row = absl::StrCat("session ", damaged, ", event seq ", bad);

  // The pages before and after the damaged row read; the one with it fails.
  raw::v1::GetHistoryResponse first;
  ASSERT_TRUE(
      History(damaged, "", static_cast<int>(before_bad), raw::v1::HISTORY_DIRECTION_FORWARD, &first)
          .ok());
  ASSERT_EQ(first.events_size(), before_bad);
  EXPECT_FALSE(first.next_cursor().empty());
  raw::v1::GetHistoryResponse holding;
  grpc::Status s =
      History(damaged, first.next_cursor(), 10, raw::v1::HISTORY_DIRECTION_FORWARD, &holding);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_THAT(s.error_message(), HasSubstr(row));
  raw::v1::GetHistoryResponse newest;
  ASSERT_TRUE(History(damaged, "", 1, raw::v1::HISTORY_DIRECTION_BACKWARD, &newest).ok());
  ASSERT_EQ(newest.events_size(), 1);
  EXPECT_TRUE(newest.events(0).has_turn_ended());
  {
    EventStream after(stub(), damaged, static_cast<uint64_t>(bad));
    EXPECT_TRUE(
        after.WaitFor([](const raw::v1::Event& e) { return e.has_turn_ended(); }).has_value());
  }
  raw::v1::Session info;
  ASSERT_TRUE(GetSession(damaged, &info).ok());
  EXPECT_EQ(info.id(), damaged);

  // Writing is refused, naming the row; nothing reaches the model.
  const size_t requests = fake_.requests().size();
  s = Start(damaged, "three");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_THAT(s.error_message(),
              HasSubstr(absl::StrCat("session ", damaged,
                                     " cannot be written: its history could not be read: ", row)));
  EXPECT_EQ(fake_.requests().size(), requests);

  // The other session of the database works as ever.
  Turn(healthy, "again", "hi again");

  ExpectNothingLost(before, healthy);
}

TEST_F(CorruptRowTest, ADamagedContextItemIsNamedTheHistoryStillReadsAndNothingIsLost) {
  const std::string damaged = daemon_->CreateSession();
  Turn(damaged, "one", "first answer");
  Turn(damaged, "two", "second answer");
  const std::string healthy = daemon_->CreateSession();
  ASSERT_EQ(daemon_->Stop(), 0);
  Damage("context_items", "position", damaged, 1);
  const std::map<std::string, std::string> before = AllRows(DatabasePath(), healthy);
  ASSERT_TRUE(daemon_->Start().ok());

  raw::v1::GetHistoryResponse all;
  ASSERT_TRUE(History(damaged, "", 1000, raw::v1::HISTORY_DIRECTION_FORWARD, &all).ok());
  ASSERT_GT(all.events_size(), 0);
  EXPECT_TRUE(all.events(all.events_size() - 1).has_turn_ended());
  // The record reads; only its context estimate is missing.
  raw::v1::Session info;
  ASSERT_TRUE(GetSession(damaged, &info).ok());
  EXPECT_FALSE(info.has_context());

  grpc::Status s = Start(damaged, "three");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_THAT(s.error_message(),
              HasSubstr(absl::StrCat("session ", damaged,
                                     " cannot be written: its model context could not be read: "
                                     "session ",
                                     damaged, ", context item at position 1")));

  Turn(healthy, "hello", "hi");
  ExpectNothingLost(before, healthy);
}

// Text columns of one sessions row overwritten with bytes that are not
// UTF-8 (which no proto string may hold): the listing still holds every
// session, the damaged texts with U+FFFD in place of the bad bytes, and the
// session reads; the other session is unaffected.
TEST_F(CorruptRowTest, ASessionRowWithInvalidUtf8TextIsListedWithReplacementCharacters) {
  const std::string damaged = daemon_->CreateSession();
  Turn(damaged, "one", "first answer");
  const std::string healthy = daemon_->CreateSession();
  ASSERT_EQ(daemon_->Stop(), 0);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(DatabasePath().c_str(), &db), SQLITE_OK);
    const std::string sql = absl::StrCat(
        "UPDATE sessions SET title = CAST(X'66FF6F' AS TEXT), cwd = CAST(X'2F64FE' AS TEXT), "
        "agent = CAST(X'61C0' AS TEXT), model = CAST(X'6DED' AS TEXT) WHERE id = '",
        damaged, "'");
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    ASSERT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);
  }
  ASSERT_TRUE(daemon_->Start().ok());

  raw::v1::ListSessionsRequest req;
  raw::v1::ListSessionsResponse listed;
  grpc::ClientContext ctx;
  grpc::Status s = stub().ListSessions(&ctx, req, &listed);
  ASSERT_TRUE(s.ok()) << s.error_message();
  std::map<std::string, raw::v1::Session> by_id;
  for (const raw::v1::Session& session : listed.sessions()) by_id[session.id()] = session;
  ASSERT_EQ(by_id.size(), 2u);
  ASSERT_TRUE(by_id.contains(damaged));
  ASSERT_TRUE(by_id.contains(healthy));
  const raw::v1::Session& shown = by_id[damaged];
  EXPECT_EQ(shown.title(), "f\uFFFDo");
  EXPECT_EQ(shown.cwd(), "/d\uFFFD");
  EXPECT_EQ(shown.agent(), "a\uFFFD");
  EXPECT_EQ(shown.model(), "m\uFFFD");
  EXPECT_GT(shown.last_seq(), 0u);

  raw::v1::Session info;
  ASSERT_TRUE(GetSession(damaged, &info).ok());
  EXPECT_EQ(info.title(), "f\uFFFDo");
  ASSERT_TRUE(GetSession(healthy, &info).ok());
  EXPECT_EQ(info.id(), healthy);

  // The terminal client lists both too.
  CommandResult list = daemon_->RunRaw({"sessions", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(damaged));
  EXPECT_THAT(list.out, HasSubstr(healthy));
}

}  // namespace
}  // namespace raw::e2e
