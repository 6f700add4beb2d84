// SessionManager routes the lease changes to the session's queue, never
// unloads a session while a lease command is queued or its lease is held,
// and ends the lease of a session it removes (deleted or expired).
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "daemon/loop/session_manager.h"
#include "daemon/store/sqlite/db.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/temp_store.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::loop {
namespace {

using Acquired = absl::StatusOr<WriteLeases::Acquired>;

class SessionManagerLeaseTest : public ::testing::Test {
 protected:
  Acquired Acquire(const std::string& session, WhenHeld when_held) {
    return testing::Await<WriteLeases::Acquired>([&](Reply<WriteLeases::Acquired> reply) {
      manager_.AcquireLease(session, LeaseClient{"test", "test", 0}, when_held, {},
                            [reply](Acquired acquired) {
                              reply(std::move(acquired));
                              return true;
                            });
    });
  }

  // Holds the session's lease; `ended` gets the status the lease ended with.
  std::string Hold(std::promise<absl::Status>& ended) {
    LeaseCallbacks callbacks;
    callbacks.ended = [&ended](const absl::Status& why) { ended.set_value(why); };
    Acquired held = testing::Await<WriteLeases::Acquired>([&](Reply<WriteLeases::Acquired> reply) {
      manager_.AcquireLease(store_.session_id(), LeaseClient{"holder", "test", 0},
                            WhenHeld::kRefuse, std::move(callbacks), [reply](Acquired acquired) {
                              reply(std::move(acquired));
                              return true;
                            });
    });
    EXPECT_TRUE(held.ok()) << held.status();
    return held.ok() ? held->lease_id : "";
  }

  // Rows of the session left in `table` of the store's file.
  int64_t RowsLeft(const std::string& table) {
    auto db = *store::Database::Open(store_.dir() + "/sessions.sqlite3");
    auto count = db->QueryInt64(absl::StrCat("SELECT count(*) FROM ", table, " WHERE ",
                                             table == "sessions" ? "id" : "session_id", " = '",
                                             store_.session_id(), "'"));
    EXPECT_TRUE(count.ok()) << count.status();
    return count.value_or(-1);
  }

  void Exec(const std::string& sql) {
    auto db = *store::Database::Open(store_.dir() + "/sessions.sqlite3");
    ASSERT_TRUE(db->Exec(sql).ok()) << sql;
  }

  // Runs (when set) after each batch of a session's removal, on the thread
  // that removes it: for a delete, on the session's queue, after the store
  // hid the session and before the manager unloads its runner.
  std::function<void(const std::string& session_id)> on_removal_batch_;
  // Runs (when set) at the end of each read of the store, its snapshot
  // still held, on the reading thread.
  std::function<void(const std::string& session_id)> on_read_;
  testing::TempStore store_{
      "sess_1",
      store::StoreOptions{.test_hook = [this](store::StoreStep step, const std::string& id) {
        if (step == store::StoreStep::kRemovalBatchDone && on_removal_batch_) {
          on_removal_batch_(id);
        }
        if (step == store::StoreStep::kReading && on_read_) on_read_(id);
      }}};
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  SessionManager manager_{SessionManagerDeps{
      .store = store_.store(),
      .http = http_,
      .tools = tools_,
      .clock = clock_,
      .env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; },
      .config_path = store_.dir() + "/config.json",
      .probe = [](const std::string&) { return false; },
  }};
};

TEST_F(SessionManagerLeaseTest, ASessionIsNotUnloadedWhileALeaseCommandIsQueuedOrTheLeaseHeld) {
  const std::string session = store_.session_id();
  // A slow command occupies the queue; an acquire waits behind it.
  absl::Notification running, release;
  manager_.AcquireLease(session, LeaseClient{"blocker", "test", 0}, WhenHeld::kRefuse, {},
                        [&](const Acquired&) {
                          running.Notify();
                          release.WaitForNotification();
                          return false;  // gone: the lease is given back
                        });
  running.WaitForNotification();
  std::promise<Acquired> queued;
  manager_.AcquireLease(session, LeaseClient{"queued", "test", 0}, WhenHeld::kRefuse, {},
                        [&](Acquired acquired) {
                          queued.set_value(std::move(acquired));
                          return true;
                        });
  EXPECT_EQ(manager_.UnloadIdle(absl::ZeroDuration()), 0u);
  EXPECT_EQ(manager_.loaded_sessions(), 1u);
  release.Notify();
  Acquired held = queued.get_future().get();
  ASSERT_TRUE(held.ok()) << held.status();
  ASSERT_FALSE(held->lease_id.empty());

  // Held: the session stays, however long it has been idle.
  EXPECT_EQ(manager_.UnloadIdle(absl::ZeroDuration()), 0u);
  EXPECT_EQ(manager_.loaded_sessions(), 1u);
  Acquired refused = Acquire(session, WhenHeld::kRefuse);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("\"queued\""), std::string::npos)
      << refused.status();

  // Released (a command posted by nobody who waits for it), then declined
  // by a client that no longer holds it: the decline runs after the
  // release, so it is refused.
  manager_.ReleaseLease(session, held->lease_id);
  auto declined = testing::Await<int>(
      [&](Reply<int> reply) { manager_.DeclineHandover(session, held->lease_id, reply); });
  EXPECT_EQ(declined.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Acquire(session, WhenHeld::kRefuse).ok());
}

TEST_F(SessionManagerLeaseTest, AnAcquireForAnUnknownSessionIsRefusedByItsLookup) {
  Acquired acquired = Acquire("no_such_session", WhenHeld::kRefuse);
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kNotFound) << acquired.status();
}

// The session's last activity is the epoch, long past the default 30 days:
// the purge removes it although a client holds it open, and that client is
// told, as on a delete.
TEST_F(SessionManagerLeaseTest, ExpiryEndsTheLeaseAndUnloadsTheSession) {
  std::promise<absl::Status> ended;
  ASSERT_FALSE(Hold(ended).empty());
  ASSERT_EQ(manager_.loaded_sessions(), 1u);
  auto removed = manager_.PurgeExpired();
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 1u);
  absl::Status why = ended.get_future().get();
  EXPECT_EQ(why.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(why.message().find("expired after 30 days"), std::string::npos) << why;
  EXPECT_EQ(manager_.loaded_sessions(), 0u);
  EXPECT_EQ(Acquire(store_.session_id(), WhenHeld::kRefuse).status().code(),
            absl::StatusCode::kNotFound);
}

// A removal cut short (what a kill between two batches leaves) is finished
// by the purge also when sessions never expire.
TEST_F(SessionManagerLeaseTest, ARemovalCutShortIsFinishedAlsoWhenSessionsNeverExpire) {
  std::ofstream(store_.dir() + "/config.json") << R"({"sessions": {"expire_after_days": 0}})";
  store::CommitBatch batch;
  batch.context_appends.push_back(events::UserText{"hello"});
  ASSERT_TRUE(store_.store().Commit(store_.session_id(), batch).ok());
  Exec("UPDATE sessions SET removing = 1");
  ASSERT_EQ(RowsLeft("context_items"), 1);

  auto removed = manager_.PurgeExpired();
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(RowsLeft("context_items"), 0);
  EXPECT_EQ(RowsLeft("sessions"), 0);
}

// A removal that keeps failing (a damaged page in another session's rows)
// does not stop expiry: the expired session still goes, and the error names
// the session that could not be removed.
TEST_F(SessionManagerLeaseTest, ASessionThatCannotBeRemovedDoesNotStopExpiry) {
  Exec(
      "INSERT INTO sessions (id, agent, cwd, created_at, last_activity_at, removing) "
      "VALUES ('stuck', 'coder', '/', 0, 0, 1)");
  Exec(
      "INSERT INTO context_items (session_id, position, payload) "
      "VALUES ('stuck', 0, '{\"kind\":\"user_text\",\"text\":\"hi\"}')");
  Exec(
      "CREATE TRIGGER refuse BEFORE DELETE ON context_items WHEN old.session_id = 'stuck' "
      "BEGIN SELECT RAISE(ABORT, 'database disk image is malformed'); END");
  std::promise<absl::Status> ended;
  ASSERT_FALSE(Hold(ended).empty());

  auto removed = manager_.PurgeExpired();
  EXPECT_FALSE(removed.ok());
  EXPECT_NE(removed.status().message().find("session stuck "), std::string::npos)
      << removed.status();
  EXPECT_EQ(RowsLeft("sessions"), 0);
  EXPECT_EQ(manager_.loaded_sessions(), 0u);
  // The purge ends the lease before it returns: nothing to wait for.
  std::future<absl::Status> why = ended.get_future();
  ASSERT_EQ(why.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(why.get().code(), absl::StatusCode::kNotFound);
}

// A delete whose row batches fail after the session was hidden still ends
// the lease and unloads the session; the next purge deletes the rows.
TEST_F(SessionManagerLeaseTest, ADeleteCutShortStillEndsTheLease) {
  std::ofstream(store_.dir() + "/config.json") << R"({"sessions": {"expire_after_days": 0}})";
  std::promise<absl::Status> ended;
  const std::string lease = Hold(ended);
  store::CommitBatch batch;
  batch.context_appends.push_back(events::UserText{"hello"});
  ASSERT_TRUE(store_.store().Commit(store_.session_id(), batch).ok());
  Exec(
      "CREATE TRIGGER refuse BEFORE DELETE ON context_items "
      "BEGIN SELECT RAISE(ABORT, 'disk is full'); END");

  std::promise<absl::Status> deleted;
  manager_.DeleteSession(store_.session_id(), lease,
                         [&](absl::Status s) { deleted.set_value(std::move(s)); });
  absl::Status s = deleted.get_future().get();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is removed, but deleting its stored rows failed"), std::string::npos)
      << s;
  EXPECT_EQ(ended.get_future().get().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_.loaded_sessions(), 0u);

  Exec("DROP TRIGGER refuse");
  ASSERT_TRUE(manager_.PurgeExpired().ok());
  EXPECT_EQ(RowsLeft("context_items"), 0);
  EXPECT_EQ(RowsLeft("sessions"), 0);
}

// A client that found the session's runner while the delete ran on its
// queue (the store had removed the session, the manager had not unloaded
// it yet) posts behind the delete: its acquire and its write run after the
// lease ended, and are refused with NOT_FOUND rather than granted a lease on
// a session that no longer exists, which nothing would ever end.
TEST_F(SessionManagerLeaseTest, AnAcquireOrWritePostedDuringTheDeleteIsRefusedWithNotFound) {
  std::promise<absl::Status> ended;
  const std::string lease = Hold(ended);
  std::promise<Acquired> late_acquire;
  std::promise<absl::StatusOr<bool>> late_write;
  bool posted = false;  // only on the session's queue
  on_removal_batch_ = [&](const std::string& id) {
    if (posted) return;
    posted = true;
    ASSERT_EQ(manager_.loaded_sessions(), 1u);  // the runner the callers find
    manager_.AcquireLease(id, LeaseClient{"late", "test", 0}, WhenHeld::kRefuse, {},
                          [&](Acquired acquired) {
                            late_acquire.set_value(std::move(acquired));
                            return true;
                          });
    manager_.InterruptTurn(id, lease, [&](absl::StatusOr<bool> interrupted) {
      late_write.set_value(std::move(interrupted));
    });
  };
  std::promise<absl::Status> deleted;
  manager_.DeleteSession(store_.session_id(), lease,
                         [&](absl::Status s) { deleted.set_value(std::move(s)); });
  ASSERT_TRUE(deleted.get_future().get().ok());
  ASSERT_TRUE(posted);
  EXPECT_EQ(ended.get_future().get().code(), absl::StatusCode::kNotFound);

  std::future<Acquired> acquire = late_acquire.get_future();
  ASSERT_EQ(acquire.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  Acquired acquired = acquire.get();
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kNotFound)
      << (acquired.ok() ? "granted " + acquired->lease_id : acquired.status().ToString());
  EXPECT_NE(acquired.status().message().find("was deleted"), std::string::npos)
      << acquired.status();
  std::future<absl::StatusOr<bool>> write = late_write.get_future();
  ASSERT_EQ(write.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(write.get().status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_.loaded_sessions(), 0u);
}

// The same for an expiry, which removes the session off its queue: an
// acquire posted to the runner before the purge unloaded it, and run after
// (here held behind a slow command), is refused with NOT_FOUND, not told
// that the daemon is shutting down.
TEST_F(SessionManagerLeaseTest, AnAcquirePostedDuringAnExpiryIsRefusedWithNotFound) {
  const std::string session = store_.session_id();
  absl::Notification running, release;
  manager_.DeclineHandover(session, "lease_none", [&](absl::StatusOr<int>) {
    running.Notify();
    release.WaitForNotification();
  });
  running.WaitForNotification();
  std::promise<Acquired> late_acquire;
  bool posted = false;  // only on this thread, which purges
  on_removal_batch_ = [&](const std::string& id) {
    if (posted) return;
    posted = true;
    manager_.AcquireLease(id, LeaseClient{"late", "test", 0}, WhenHeld::kRefuse, {},
                          [&](Acquired acquired) {
                            late_acquire.set_value(std::move(acquired));
                            return true;
                          });
  };
  auto removed = manager_.PurgeExpired();
  ASSERT_TRUE(removed.ok()) << removed.status();
  ASSERT_EQ(*removed, 1u);
  ASSERT_TRUE(posted);
  release.Notify();

  std::future<Acquired> acquire = late_acquire.get_future();
  ASSERT_EQ(acquire.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  Acquired acquired = acquire.get();
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kNotFound)
      << (acquired.ok() ? "granted " + acquired->lease_id : acquired.status().ToString());
  EXPECT_NE(acquired.status().message().find("expired"), std::string::npos) << acquired.status();
}

// The first load of a session reads its record, then adds its runner. An
// expiry in between found no runner to mark removed, so the load reads the
// record again and finds the session gone, rather than loading a runner of
// a removed session and granting its lease.
TEST_F(SessionManagerLeaseTest, AFirstLoadThatReadTheSessionBeforeItExpiredDoesNotLoadIt) {
  const std::string session = store_.session_id();
  ASSERT_EQ(manager_.loaded_sessions(), 0u);
  std::atomic<bool> armed{true};
  absl::StatusOr<size_t> purged = absl::UnknownError("not run");
  on_read_ = [&](const std::string& id) {
    if (id != session || !armed.exchange(false)) return;
    // The load has read the record; the session expires before it goes on.
    std::thread expiry([&] { purged = manager_.PurgeExpired(); });
    expiry.join();
  };
  Acquired acquired = Acquire(session, WhenHeld::kRefuse);
  ASSERT_FALSE(armed.load());
  ASSERT_TRUE(purged.ok()) << purged.status();
  ASSERT_EQ(*purged, 1u);
  EXPECT_EQ(acquired.status().code(), absl::StatusCode::kNotFound)
      << (acquired.ok() ? "granted " + acquired->lease_id : acquired.status().ToString());
  EXPECT_EQ(manager_.loaded_sessions(), 0u);
}

}  // namespace
}  // namespace raw::loop
