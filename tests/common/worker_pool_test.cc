#include "common/worker_pool.h"

#include <atomic>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

TEST(WorkerPoolTest, ABlockedTaskNeverDelaysAnother) {
  WorkerPool pool;
  absl::Notification release, second_ran;
  ASSERT_TRUE(pool.Schedule([&] { release.WaitForNotification(); }));
  ASSERT_TRUE(pool.Schedule([&] { second_ran.Notify(); }));
  // The second task runs while the first still blocks its worker.
  EXPECT_TRUE(second_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(pool.threads(), 2u);
  release.Notify();
}

TEST(WorkerPoolTest, AnIdleWorkerTakesTheNextTaskInsteadOfANewThread) {
  WorkerPool pool;
  for (int i = 0; i < 20; ++i) {
    absl::Notification done;
    ASSERT_TRUE(pool.Schedule([&] { done.Notify(); }));
    done.WaitForNotification();
  }
  // A worker that just finished may not yet count as idle when the next
  // task comes (on a loaded machine, several may be finishing), so a few
  // threads may start; never one per task.
  EXPECT_LT(pool.threads(), 10u);
}

TEST(WorkerPoolTest, ShutdownRunsWhatWasQueuedThenRefuses) {
  std::atomic<int> ran{0};
  WorkerPool pool;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.Schedule([&] { ++ran; }));
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 50);
  EXPECT_FALSE(pool.Schedule([&] { ++ran; }));
  EXPECT_EQ(pool.threads(), 0u);
}

}  // namespace
}  // namespace raw
