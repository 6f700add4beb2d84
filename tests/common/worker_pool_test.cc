#include "common/worker_pool.h"

#include <atomic>
#include <system_error>
#include <thread>

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

// A process or thread limit (pids.max, RLIMIT_NPROC): std::thread throws.
// The task waits for the worker that runs and is not lost; once threads can
// start again, a new task gets its own.
TEST(WorkerPoolTest, WhenNoThreadCanStartTheTaskWaitsForARunningWorker) {
  std::atomic<bool> refuse{false};
  std::atomic<int> started{0};
  WorkerPool pool(absl::Seconds(30), [&](std::function<void()> body) {
    if (refuse) {
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
    }
    ++started;
    return std::thread(std::move(body));
  });
  absl::Notification release, first_running, second_ran;
  ASSERT_TRUE(pool.Schedule([&] {
    first_running.Notify();
    release.WaitForNotification();
  }));
  first_running.WaitForNotification();
  refuse = true;
  ASSERT_TRUE(pool.Schedule([&] { second_ran.Notify(); }));
  EXPECT_EQ(pool.threads(), 1u);
  EXPECT_FALSE(second_ran.HasBeenNotified());
  release.Notify();  // the running worker takes the waiting task
  EXPECT_TRUE(second_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(started, 1);

  refuse = false;
  absl::Notification unblock, third_running, fourth_ran;
  ASSERT_TRUE(pool.Schedule([&] {
    third_running.Notify();
    unblock.WaitForNotification();
  }));
  third_running.WaitForNotification();
  ASSERT_TRUE(pool.Schedule([&] { fourth_ran.Notify(); }));
  EXPECT_TRUE(fourth_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_GE(started, 2);
  unblock.Notify();
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
