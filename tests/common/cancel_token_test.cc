// CancelToken's callbacks: each runs once, and RemoveCallback returns only
// when the callback does not run and is not running, so that what it refers
// to may then be destroyed.
#include "common/cancel_token.h"

#include <poll.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

TEST(CancelTokenTest, CallbacksRunOnceAndTheFdBecomesReadable) {
  CancelToken token;
  int runs = 0;
  token.OnCancel([&runs] { ++runs; });
  token.Cancel("stop");
  token.Cancel("again");
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(token.cancelled());
  EXPECT_EQ(token.reason(), "stop");
  pollfd p{token.fd(), POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 1);
  // Registered after the cancel: runs at once.
  token.OnCancel([&runs] { ++runs; });
  EXPECT_EQ(runs, 2);
}

// A callback running on the cancelling thread when another thread removes
// it: the removal waits for it to end, so the state it writes to may be
// destroyed right after (a callback that forwards the cancel to a token on
// the remover's stack, say).
TEST(CancelTokenTest, RemovingACallbackThatIsRunningWaitsForItsEnd) {
  CancelToken token;
  absl::Notification started;
  absl::Notification release;
  auto state = std::make_unique<std::atomic<int>>(0);
  std::atomic<int>* written = state.get();
  const int id = token.OnCancel([&started, &release, written] {
    started.Notify();
    release.WaitForNotification();
    written->store(1);
  });
  std::thread canceller([&token] { token.Cancel(); });
  started.WaitForNotification();

  absl::Notification removed;
  std::atomic<int> seen_after_removal{-1};
  std::thread remover([&] {
    token.RemoveCallback(id);
    seen_after_removal.store(written->load());
    removed.Notify();
  });
  // The callback is held: the removal cannot have returned. (A wrong
  // implementation returns at once; the bound only limits how long this
  // looks for that.)
  EXPECT_FALSE(removed.WaitForNotificationWithTimeout(absl::Milliseconds(200)));
  release.Notify();
  removed.WaitForNotification();
  EXPECT_EQ(seen_after_removal.load(), 1);
  remover.join();
  canceller.join();
  state.reset();
}

// A callback removed while an earlier one runs never runs; one that
// removes itself or another from inside the cancel does not wait for
// itself.
TEST(CancelTokenTest, ACallbackRemovedBeforeItsTurnNeverRuns) {
  CancelToken token;
  absl::Notification first_started;
  absl::Notification release;
  std::atomic<int> second_runs{0};
  token.OnCancel([&] {
    first_started.Notify();
    release.WaitForNotification();
  });
  const int second = token.OnCancel([&second_runs] { ++second_runs; });
  std::thread canceller([&token] { token.Cancel(); });
  first_started.WaitForNotification();
  token.RemoveCallback(second);  // not running yet: taken out, no wait
  release.Notify();
  canceller.join();
  EXPECT_EQ(second_runs.load(), 0);

  CancelToken other;
  int self = 0;
  int later_runs = 0;
  int later = 0;
  self = other.OnCancel([&] {
    other.RemoveCallback(self);
    other.RemoveCallback(later);
  });
  later = other.OnCancel([&later_runs] { ++later_runs; });
  other.Cancel();
  EXPECT_EQ(later_runs, 0);
}

// Many cancels racing with removals: after RemoveCallback returns, the
// callback never touches its state again.
TEST(CancelTokenTest, NoCallbackRunsAfterItsRemovalReturned) {
  for (int round = 0; round < 500; ++round) {
    CancelToken token;
    auto alive = std::make_shared<std::atomic<bool>>(true);
    std::atomic<bool> touched_dead{false};
    const int id = token.OnCancel([alive, &touched_dead] {
      if (!alive->load()) touched_dead.store(true);
    });
    std::thread canceller([&token] { token.Cancel(); });
    token.RemoveCallback(id);
    alive->store(false);
    canceller.join();
    ASSERT_FALSE(touched_dead.load()) << "round " << round;
  }
}

}  // namespace
}  // namespace raw
