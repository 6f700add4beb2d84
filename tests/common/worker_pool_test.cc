#include "common/worker_pool.h"

#include <pthread.h>

#include <atomic>
#include <string>
#include <system_error>
#include <thread>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
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
  WorkerPool pool("test-pool", absl::Seconds(30), [&](std::function<void()> body) {
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

// A starter that refuses while `refuse` is set and counts the workers whose
// body has returned (exited for idleness or at shutdown).
class CountingStarter {
 public:
  WorkerPool::ThreadStarter starter() {
    return [this](std::function<void()> body) {
      if (refuse) {
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      }
      return std::thread([this, body = std::move(body)] {
        body();
        absl::MutexLock lock(&mu_);
        ++exited_;
      });
    };
  }
  bool AwaitExited(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, n]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return exited_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  std::atomic<bool> refuse{false};

 private:
  absl::Mutex mu_;
  int exited_ ABSL_GUARDED_BY(mu_) = 0;
};

// With a ceiling, a task scheduled while every worker is busy waits for
// one of them rather than getting a thread of its own.
TEST(WorkerPoolTest, PastItsCeilingATaskWaitsForARunningWorker) {
  WorkerPool pool("test-pool", absl::Seconds(30), nullptr, /*max_threads=*/2);
  absl::Notification release;
  absl::BlockingCounter busy(2);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(pool.Schedule([&] {
      busy.DecrementCount();
      release.WaitForNotification();
    }));
  }
  busy.Wait();  // both workers hold a task
  absl::Notification third_ran;
  ASSERT_TRUE(pool.Schedule([&] { third_ran.Notify(); }));
  EXPECT_EQ(pool.threads(), 2u);
  EXPECT_FALSE(third_ran.HasBeenNotified());  // no worker is free to take it
  release.Notify();
  EXPECT_TRUE(third_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(pool.threads(), 2u);
}

// The pool has a worker from the start, so a task scheduled under a process
// limit before any other runs is not stranded.
TEST(WorkerPoolTest, APoolStartsItsWorkerWhenMade) {
  CountingStarter starts;
  WorkerPool pool("test-pool", absl::Seconds(30), starts.starter());
  EXPECT_EQ(pool.threads(), 1u);
  starts.refuse = true;
  absl::Notification ran;
  ASSERT_TRUE(pool.Schedule([&] { ran.Notify(); }));
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

// Idle workers exit, but not the last one: a task scheduled when no thread
// can start still finds a worker after a quiet spell.
TEST(WorkerPoolTest, TheLastWorkerNeverIdlesOut) {
  CountingStarter starts;
  WorkerPool pool("test-pool", absl::Milliseconds(1), starts.starter());
  absl::Notification release, first_running, second_running;
  ASSERT_TRUE(pool.Schedule([&] {
    first_running.Notify();
    release.WaitForNotification();
  }));
  ASSERT_TRUE(pool.Schedule([&] {
    second_running.Notify();
    release.WaitForNotification();
  }));
  first_running.WaitForNotification();
  second_running.WaitForNotification();
  EXPECT_EQ(pool.threads(), 2u);
  release.Notify();
  ASSERT_TRUE(starts.AwaitExited(1));  // one of the two idled out
  starts.refuse = true;
  absl::Notification ran;
  ASSERT_TRUE(pool.Schedule([&] { ran.Notify(); }));
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(pool.threads(), 1u);
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

// Workers carry the pool's name, cut to what Linux keeps, so that the
// threads of each pool can be told apart in /proc/PID/task/*/comm.
TEST(WorkerPoolTest, WorkersCarryThePoolsName) {
  auto name_of_worker = [](std::string pool_name) {
    WorkerPool pool(std::move(pool_name));
    std::string name;
    absl::Notification ran;
    EXPECT_TRUE(pool.Schedule([&] {
      char buffer[32] = {};
      pthread_getname_np(pthread_self(), buffer, sizeof buffer);
      name = buffer;
      ran.Notify();
    }));
    ran.WaitForNotification();
    return name;
  };
  EXPECT_EQ(name_of_worker("rawd-sessions"), "rawd-sessions");
  EXPECT_EQ(name_of_worker("a-name-longer-than-fifteen"), "a-name-longer-t");
}

}  // namespace
}  // namespace raw
