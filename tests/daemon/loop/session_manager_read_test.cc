// The API's calls never hold their caller (a gRPC handler) while a session
// is read: GetSession and GetStats run on the worker pool, and every call
// that names a session not yet loaded (or not past its crash recovery)
// loads it there.
#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/session_manager.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/temp_store.h"
#include "tests/fakes/fake_http_client.h"

namespace raw::loop {
namespace {

class SessionManagerReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::StoreOptions options;
    options.test_hook = [this](store::StoreStep step, const std::string& id) {
      // Holds the first read of the session's own data (not the session
      // list) until the test lets it go; a caller that waited for the read
      // would keep the test from getting there, and the wait gives up.
      if (step != store::StoreStep::kReading || id != "sess_read" || !hold_.exchange(false)) {
        return;
      }
      reading_.Notify();
      if (!release_.WaitForNotificationWithTimeout(absl::Seconds(10))) held_caller_ = true;
    };
    auto opened = store::SessionStore::Open(dir_.dir() + "/held.sqlite3", options);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
    store::SessionRecord record;
    record.id = "sess_read";
    record.agent = "default";
    record.cwd = dir_.dir();
    ASSERT_TRUE(store_->CreateSession(record).ok());
    manager_ = std::make_unique<SessionManager>(SessionManagerDeps{
        .store = *store_,
        .http = http_,
        .tools = tools_,
        .clock = clock_,
        .env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; },
        .config_path = dir_.dir() + "/config.json",
        .probe = [](const std::string&) { return false; },
    });
  }
  void TearDown() override {
    manager_.reset();
    store_.reset();
  }

  // Calls `start` with a reply and checks that it returned before the
  // session's data was read; returns what the reply got.
  template <typename T>
  absl::StatusOr<T> HeldCall(const std::function<void(Reply<T>)>& start) {
    hold_ = true;
    auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
    std::future<absl::StatusOr<T>> replied = promise->get_future();
    start([promise](absl::StatusOr<T> result) { promise->set_value(std::move(result)); });
    release_.Notify();  // the caller is back: the read may go on
    reading_.WaitForNotification();
    if (replied.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      ADD_FAILURE() << "no reply within 30 s";
      return absl::DeadlineExceededError("no reply");
    }
    absl::StatusOr<T> result = replied.get();
    EXPECT_FALSE(held_caller_) << "the caller waited for the session's data";
    return result;
  }
  absl::StatusOr<SessionInfo> HeldRead(const std::function<void(Reply<SessionInfo>)>& start) {
    return HeldCall<SessionInfo>(start);
  }

  testing::TempStore dir_;
  std::unique_ptr<store::SessionStore> store_;
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  std::unique_ptr<SessionManager> manager_;
  std::atomic<bool> hold_{false};
  std::atomic<bool> held_caller_{false};
  absl::Notification reading_, release_;
};

TEST_F(SessionManagerReadTest, GetSessionRepliesFromThePoolWithoutHoldingTheCaller) {
  absl::StatusOr<SessionInfo> info = HeldRead(
      [this](Reply<SessionInfo> reply) { manager_->GetSession("sess_read", true, reply); });
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->record.id, "sess_read");
}

TEST_F(SessionManagerReadTest, GetStatsRepliesFromThePoolWithoutHoldingTheCaller) {
  absl::StatusOr<SessionInfo> info =
      HeldRead([this](Reply<SessionInfo> reply) { manager_->GetStats("sess_read", reply); });
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->record.id, "sess_read");
}

TEST_F(SessionManagerReadTest, SubscribeLoadsTheSessionOnThePool) {
  absl::StatusOr<std::unique_ptr<Subscription>> subscription =
      HeldCall<std::unique_ptr<Subscription>>([this](Reply<std::unique_ptr<Subscription>> reply) {
        manager_->Subscribe("sess_read", 0, reply);
      });
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  ASSERT_NE(*subscription, nullptr);
  (*subscription)->Close();
}

TEST_F(SessionManagerReadTest, GetHistoryLoadsTheSessionOnThePool) {
  absl::StatusOr<store::HistoryPage> page =
      HeldCall<store::HistoryPage>([this](Reply<store::HistoryPage> reply) {
        manager_->GetHistory("sess_read", "", 10, store::HistoryDirection::kBackward, reply);
      });
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(page->events.empty());
}

TEST_F(SessionManagerReadTest, AcquireLeaseLoadsTheSessionOnThePool) {
  absl::StatusOr<WriteLeases::Acquired> acquired =
      HeldCall<WriteLeases::Acquired>([this](Reply<WriteLeases::Acquired> reply) {
        manager_->AcquireLease("sess_read", LeaseClient{"test", "test", 0}, WhenHeld::kRefuse, {},
                               [reply](absl::StatusOr<WriteLeases::Acquired> result) {
                                 reply(std::move(result));
                                 return true;
                               });
      });
  ASSERT_TRUE(acquired.ok()) << acquired.status();
  manager_->ReleaseLease("sess_read", acquired->lease_id);
}

TEST_F(SessionManagerReadTest, AWriteLoadsTheSessionOnThePool) {
  // Without the lease the write is refused, but only once the session is
  // loaded, which the caller does not wait for.
  absl::StatusOr<bool> interrupted = HeldCall<bool>(
      [this](Reply<bool> reply) { manager_->InterruptTurn("sess_read", "no-lease", reply); });
  EXPECT_EQ(interrupted.status().code(), absl::StatusCode::kFailedPrecondition)
      << interrupted.status();
  absl::StatusOr<std::string> started =
      testing::Await<std::string>([this](Reply<std::string> reply) {
        manager_->StartTurn("sess_read", "hello", "no-lease", reply);
      });
  EXPECT_EQ(started.status().code(), absl::StatusCode::kFailedPrecondition) << started.status();
}

TEST_F(SessionManagerReadTest, ALoadedSessionsHistoryIsReadOnTheSpot) {
  ASSERT_TRUE(testing::Await<store::HistoryPage>([this](Reply<store::HistoryPage> reply) {
                manager_->GetHistory("sess_read", "", 10, store::HistoryDirection::kBackward,
                                     reply);
              }).ok());
  // Loaded and recovered now: the reply comes before the call returns.
  bool replied = false;
  manager_->GetHistory("sess_read", "", 10, store::HistoryDirection::kBackward,
                       [&replied](absl::StatusOr<store::HistoryPage> page) {
                         EXPECT_TRUE(page.ok()) << page.status();
                         replied = true;
                       });
  EXPECT_TRUE(replied);
}

TEST_F(SessionManagerReadTest, AMissingSessionIsNotFoundThroughTheReply) {
  absl::StatusOr<SessionInfo> info = testing::Await<SessionInfo>(
      [this](Reply<SessionInfo> reply) { manager_->GetSession("sess_none", true, reply); });
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
}

// A session whose context is in memory is described on the pool too: its
// estimate takes the runner's lock, which a commit holds while the store's
// writer (shared by every session) serves others.
TEST_F(SessionManagerReadTest, ALoadedSessionIsDescribedOnThePoolNotByTheCaller) {
  std::ofstream(dir_.dir() + "/config.json")
      << R"({"models": {"m": {"method": "openai-chat-completions", "model_id": "x",
                              "base_url": "http://127.0.0.1:1/v1"}},
             "agents": {"default": {"model": "m", "tools": {"use": []}}}})";
  absl::StatusOr<SessionInfo> loaded = manager_->GetSession("sess_read");  // loads the context
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->context.has_value()) << "no estimate: the context was not loaded";
  for (bool stats : {false, true}) {
    auto replied_on = std::make_shared<std::promise<std::thread::id>>();
    std::future<std::thread::id> thread = replied_on->get_future();
    Reply<SessionInfo> reply = [replied_on](absl::StatusOr<SessionInfo> info) {
      EXPECT_TRUE(info.ok()) << info.status();
      EXPECT_TRUE(info.ok() && info->context.has_value());
      replied_on->set_value(std::this_thread::get_id());
    };
    if (stats) {
      manager_->GetStats("sess_read", reply);
    } else {
      manager_->GetSession("sess_read", true, reply);
    }
    ASSERT_EQ(thread.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_NE(thread.get(), std::this_thread::get_id()) << (stats ? "GetStats" : "GetSession");
  }
}

// Each subscription costs every event of the session a copy and a wakeup
// on the publishing thread: one session keeps at most kMaxSubscriptions.
TEST_F(SessionManagerReadTest, ASessionKeepsABoundedNumberOfSubscriptions) {
  std::vector<std::unique_ptr<Subscription>> open;
  for (size_t i = 0; i < SessionLog::kMaxSubscriptions; ++i) {
    absl::StatusOr<std::unique_ptr<Subscription>> sub = manager_->Subscribe("sess_read", 0);
    ASSERT_TRUE(sub.ok()) << i << ": " << sub.status();
    open.push_back(*std::move(sub));
  }
  absl::StatusOr<std::unique_ptr<Subscription>> more = manager_->Subscribe("sess_read", 0);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(more.status().message()), ::testing::HasSubstr("sess_read"));
  open.pop_back();  // one closes: another may open
  EXPECT_TRUE(manager_->Subscribe("sess_read", 0).ok());
}

}  // namespace
}  // namespace raw::loop
