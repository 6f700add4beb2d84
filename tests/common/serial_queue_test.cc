#include "common/serial_queue.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

TEST(SerialQueueTest, CommandsRunOneAtATimeInPostOrder) {
  WorkerPool pool;
  auto queue = SerialQueue::Create(pool);
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> running{0};
  std::atomic<int> overlaps{0};
  absl::Notification done;
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(queue->Post([&, i] {
      if (++running > 1) ++overlaps;
      {
        std::lock_guard<std::mutex> lock(mu);
        order.push_back(i);
      }
      --running;
      if (i == 199) done.Notify();
    }));
  }
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(overlaps.load(), 0);
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[i], i);
}

TEST(SerialQueueTest, ASlowCommandInOneQueueDoesNotDelayAnotherQueue) {
  WorkerPool pool;
  auto slow = SerialQueue::Create(pool);
  auto fast = SerialQueue::Create(pool);
  absl::Notification release, behind_slow, fast_ran;
  ASSERT_TRUE(slow->Post([&] { release.WaitForNotification(); }));
  ASSERT_TRUE(slow->Post([&] { behind_slow.Notify(); }));
  ASSERT_TRUE(fast->Post([&] { fast_ran.Notify(); }));
  EXPECT_TRUE(fast_ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  // The slow queue's next command still waits for the one before it.
  EXPECT_FALSE(behind_slow.HasBeenNotified());
  EXPECT_EQ(slow->pending(), 2u);
  release.Notify();
  EXPECT_TRUE(behind_slow.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

TEST(SerialQueueTest, ACommandMayPostTheNextOneWithoutWaitingForIt) {
  WorkerPool pool;
  auto queue = SerialQueue::Create(pool);
  absl::Notification second;
  std::atomic<bool> first_finished{false};
  ASSERT_TRUE(queue->Post([&] {
    queue->Post([&] {
      EXPECT_TRUE(first_finished.load());
      second.Notify();
    });
    first_finished = true;
  }));
  EXPECT_TRUE(second.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

TEST(SerialQueueTest, PostAfterThePoolStoppedIsRefused) {
  WorkerPool pool;
  auto queue = SerialQueue::Create(pool);
  pool.Shutdown();
  EXPECT_FALSE(queue->Post([] { ADD_FAILURE() << "ran after shutdown"; }));
  EXPECT_EQ(queue->pending(), 0u);
}

// Posts from several threads race the pool's shutdown: a Post that
// returned true has its command run, and one that returned false does not
// (a caller told true answers its request only through the command, and a
// caller told false answers it itself).
TEST(SerialQueueTest, EveryAcceptedPostRunsWhenPostsRaceThePoolsShutdown) {
  constexpr int kRounds = 200;
  constexpr int kThreads = 4;
  constexpr int kPostsPerThread = 2000;
  for (int round = 0; round < kRounds; ++round) {
    WorkerPool pool;
    auto queue = SerialQueue::Create(pool);
    std::atomic<int> posted{0};
    std::atomic<int> accepted{0};
    std::atomic<int> ran{0};
    std::vector<std::thread> posters;
    for (int t = 0; t < kThreads; ++t) {
      posters.emplace_back([&] {
        for (int i = 0; i < kPostsPerThread; ++i) {
          if (queue->Post([&] { ++ran; })) ++accepted;
          ++posted;
        }
      });
    }
    // The pool stops while every poster goes on: most posts come after.
    while (posted.load() < kThreads * 50) std::this_thread::yield();
    pool.Shutdown();  // runs the drain already scheduled to its end
    for (std::thread& poster : posters) poster.join();
    ASSERT_EQ(ran.load(), accepted.load())
        << "round " << round << ": " << accepted.load() - ran.load()
        << " accepted command(s) never ran";
    EXPECT_EQ(queue->pending(), 0u);
  }
}

}  // namespace
}  // namespace raw
