// GetSession and GetStats for the API run on the worker pool: the caller
// (a gRPC handler) is never held while a session is loaded to estimate its
// context.
#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/loop/session_manager.h"
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
  absl::StatusOr<SessionInfo> HeldRead(
      const std::function<void(Reply<SessionInfo>)>& start) {
    hold_ = true;
    auto promise = std::make_shared<std::promise<absl::StatusOr<SessionInfo>>>();
    std::future<absl::StatusOr<SessionInfo>> replied = promise->get_future();
    start([promise](absl::StatusOr<SessionInfo> info) { promise->set_value(std::move(info)); });
    release_.Notify();  // the caller is back: the read may go on
    reading_.WaitForNotification();
    absl::StatusOr<SessionInfo> info = replied.get();
    EXPECT_FALSE(held_caller_) << "the caller waited for the session's data";
    return info;
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

TEST_F(SessionManagerReadTest, AMissingSessionIsNotFoundThroughTheReply) {
  absl::StatusOr<SessionInfo> info = testing::Await<SessionInfo>(
      [this](Reply<SessionInfo> reply) { manager_->GetSession("sess_none", true, reply); });
  EXPECT_EQ(info.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace raw::loop
