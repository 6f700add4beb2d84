#include "clients/cli/interrupt_watcher.h"

#include <signal.h>

#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace raw::cli {
namespace {

TEST(InterruptWatcherTest, EachSigintReachesTheCallbackInOrder) {
  absl::Mutex mu;
  std::vector<int> counts;
  {
    auto watcher = InterruptWatcher::Start([&](int count) {
      absl::MutexLock lock(&mu);
      counts.push_back(count);
    });
    ASSERT_TRUE(watcher.ok()) << watcher.status();
    ASSERT_EQ(raise(SIGINT), 0);  // would end the test process without the watcher
    {
      absl::MutexLock lock(&mu);
      mu.Await(absl::Condition(+[](std::vector<int>* c) { return c->size() == 1; }, &counts));
    }
    ASSERT_EQ(raise(SIGINT), 0);
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(+[](std::vector<int>* c) { return c->size() == 2; }, &counts));
  }
  EXPECT_EQ(counts, (std::vector<int>{1, 2}));
}

TEST(InterruptWatcherTest, RestoresThePreviousActionAndAllowsANewWatcher) {
  struct sigaction before;
  ASSERT_EQ(sigaction(SIGINT, nullptr, &before), 0);
  {
    auto watcher = InterruptWatcher::Start([](int) {});
    ASSERT_TRUE(watcher.ok());
    auto second = InterruptWatcher::Start([](int) {});
    EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
    struct sigaction during;
    ASSERT_EQ(sigaction(SIGINT, nullptr, &during), 0);
    EXPECT_NE(during.sa_handler, before.sa_handler);
  }
  struct sigaction after;
  ASSERT_EQ(sigaction(SIGINT, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  auto again = InterruptWatcher::Start([](int) {});
  EXPECT_TRUE(again.ok()) << again.status();
}

}  // namespace
}  // namespace raw::cli
