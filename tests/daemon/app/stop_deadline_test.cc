// StopDeadline: a stop that outlasts its deadline is ended (with the step it
// was at in the log line); one that finishes in time is left alone.
#include "daemon/app/stop_deadline.h"

#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/thread_start.h"
#include "gtest/gtest.h"

namespace raw::app {
namespace {

TEST(StopDeadlineTest, AStopPastItsDeadlineIsEnded) {
  absl::Notification expired;
  {
    StopDeadline deadline(absl::Milliseconds(20), [&] { expired.Notify(); });
    deadline.Step("stopping the MCP servers");
    // The step that does not end: only the deadline ends the wait.
    EXPECT_TRUE(expired.WaitForNotificationWithTimeout(absl::Seconds(30)));
  }
}

TEST(StopDeadlineTest, AStopThatFinishesInTimeIsLeftAlone) {
  bool expired = false;
  {
    StopDeadline deadline(absl::Hours(1), [&] { expired = true; });
    deadline.Step("closing the store");
  }  // returns at once, without waiting out the hour
  EXPECT_FALSE(expired);
}

// Without a thread to watch, the stop goes on unbounded instead of ending
// the daemon.
TEST(StopDeadlineTest, WithoutAThreadNothingIsWatched) {
  bool expired = false;
  {
    RefuseThreadStartsForTesting refuse("the deadline of the stop");
    StopDeadline deadline(absl::Milliseconds(1), [&] { expired = true; });
    EXPECT_EQ(refuse.refused(), 1);
    deadline.Step("closing the store");
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_FALSE(expired);
}

}  // namespace
}  // namespace raw::app
