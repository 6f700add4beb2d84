// running(), compacting(), mcp_servers() and EffectiveApprovalMode() are
// asked by API handlers (describing a session for ListSessions, GetSession
// and ListMcpServers, planning a context estimate): they answer at once even while
// the runner's lock is held by slow work under it (here /clear's commit; a
// context load or a warm-up's load holds it the same way).
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/ids.h"
#include "daemon/loop/session_runner.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

TEST(SessionRunnerStateReadTest, RunningAndCompactingAnswerWhileTheLockIsHeld) {
  testing::TempStore dir;
  std::atomic<bool> hold{false};
  std::atomic<bool> held_caller{false};
  absl::Notification committing, release;
  store::StoreOptions options;
  options.test_hook = [&](store::StoreStep step, const std::string&) {
    if (step != store::StoreStep::kCommitWriting || !hold.exchange(false)) return;
    committing.Notify();
    // A reader that waited for the lock would keep the test from getting
    // here; the wait gives up and says so.
    if (!release.WaitForNotificationWithTimeout(absl::Seconds(10))) held_caller = true;
  };
  auto store = store::SessionStore::Open(dir.dir() + "/held.sqlite3", options);
  ASSERT_TRUE(store.ok()) << store.status();
  store::SessionRecord record;
  record.id = "sess_held";
  record.agent = "a";
  record.cwd = dir.dir();
  ASSERT_TRUE((*store)->CreateSession(record).ok());

  SystemClock clock;
  testing::RunnerHarness harness(**store, clock);
  std::shared_ptr<SessionRunner> runner = harness.Make(record);
  TurnPlan plan;
  plan.turn_id = NewId("turn_");
  plan.cwd = dir.dir();
  plan.agent.agent.name = "a";

  hold = true;
  absl::StatusOr<events::ContextEstimate> cleared;
  std::thread clear([&] { cleared = harness.Clear(*runner, std::move(plan)); });
  committing.WaitForNotification();  // /clear commits under the runner's lock
  EXPECT_FALSE(runner->running());
  EXPECT_FALSE(runner->compacting());
  // So do the session's own settings (ListMcpServers, a context-only plan).
  EXPECT_TRUE(runner->mcp_servers().empty());
  EXPECT_EQ(runner->EffectiveApprovalMode(config::ApprovalMode::kDefault, "lease"),
            config::ApprovalMode::kDefault);
  release.Notify();
  clear.join();
  EXPECT_TRUE(cleared.ok()) << cleared.status();
  EXPECT_FALSE(held_caller) << "a reader waited for the runner's lock";
}

}  // namespace
}  // namespace raw::loop
