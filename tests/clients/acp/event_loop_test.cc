// EventLoop: a task that throws (a JSON type error that slipped through)
// is logged, and the loop runs the next task; RunOrPost lends the idle loop
// to the calling thread, one task at a time and in order.
#include "clients/acp/event_loop.h"

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/json.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

TEST(EventLoopTest, AThrowingTaskDoesNotEndTheLoop) {
  EventLoop loop;
  bool ran_after = false;
  loop.Post([] {
    Json value = {{"code", "not a number"}};
    (void)value.value("code", 0);  // throws type_error
  });
  loop.Post([&] {
    ran_after = true;
    loop.Quit();
  });
  EXPECT_NO_THROW(loop.Run());
  EXPECT_TRUE(ran_after);
}

// A loop running on a thread of its own, and a record of which thread ran
// each task, in the order they ran.
class LentLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    thread_ = std::thread([this] {
      loop_thread_ = std::this_thread::get_id();
      loop_.Run();
    });
  }
  void TearDown() override {
    loop_.Quit();
    thread_.join();
  }

  // A task that records its name and the thread that ran it.
  EventLoop::Task Record(std::string name) {
    return [this, name = std::move(name)] {
      absl::MutexLock lock(&mu_);
      ran_.push_back({name, std::this_thread::get_id()});
    };
  }
  // Runs `name` through RunOrPost until a call runs it on this thread (the
  // loop goes idle once its queue is empty); a call that found the loop
  // busy queued it, and the next try waits until the loop's thread ran it.
  void RunHereOnce(const std::string& name) {
    while (true) {
      const size_t before = Count();
      loop_.RunOrPost(Record(name));
      WaitForCount(before + 1);
      absl::MutexLock lock(&mu_);
      if (ran_.back().second == std::this_thread::get_id()) return;
    }
  }
  size_t Count() {
    absl::MutexLock lock(&mu_);
    return ran_.size();
  }
  // Waits until `n` tasks have run.
  void WaitForCount(size_t n) {
    absl::MutexLock lock(&mu_);
    auto done = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ran_.size() >= n; };
    ASSERT_TRUE(mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(30)));
  }

  EventLoop loop_;
  std::thread thread_;
  std::thread::id loop_thread_;
  absl::Mutex mu_;
  std::vector<std::pair<std::string, std::thread::id>> ran_ ABSL_GUARDED_BY(mu_);
};

TEST_F(LentLoopTest, AnIdleLoopRunsTheTaskOnTheCallersThread) {
  RunHereOnce("here");
  absl::MutexLock lock(&mu_);
  EXPECT_EQ(ran_.back().first, "here");
  // Whatever the loop's thread ran before was queued by calls that found
  // it busy; none ran on both.
  for (const auto& [name, thread] : ran_) EXPECT_EQ(name, "here");
}

TEST_F(LentLoopTest, TasksPostedByALentTaskRunBeforeTheLoopIsGivenBack) {
  RunHereOnce("warm");
  const size_t before = Count();
  loop_.RunOrPost([this] {
    loop_.Post(Record("posted"));
    Record("first")();
  });
  // Either both ran here, in order, or the loop was busy and its thread ran
  // both, in order.
  WaitForCount(before + 2);
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(ran_.size(), before + 2);
  EXPECT_EQ(ran_[before].first, "first");
  EXPECT_EQ(ran_[before + 1].first, "posted");
  EXPECT_EQ(ran_[before].second, ran_[before + 1].second);
}

TEST_F(LentLoopTest, TheLoopsThreadWaitsWhileATaskRunsElsewhere) {
  RunHereOnce("warm");
  absl::Notification lent_started, release;
  // Another thread borrows the loop (trying until the loop is idle) and
  // holds the task there; an attempt that found the loop busy ran on the
  // loop's thread and did nothing.
  std::thread lender([&] {
    const std::thread::id me = std::this_thread::get_id();
    while (true) {
      absl::Notification attempted;
      bool held = false;
      loop_.RunOrPost([&, me] {
        if (std::this_thread::get_id() == me) {
          held = true;
          lent_started.Notify();
          release.WaitForNotification();
          Record("lent")();
        }
        attempted.Notify();
      });
      // Ran here, or queued and run by the loop's thread: the next try
      // finds the queue empty.
      attempted.WaitForNotification();
      if (held) return;
    }
  });
  ASSERT_TRUE(lent_started.WaitForNotificationWithTimeout(absl::Seconds(30)));
  // Posted while the task runs elsewhere: the loop's thread must not run it
  // until the lent task is done; then it runs after it.
  const size_t before = Count();
  loop_.Post(Record("after"));
  release.Notify();
  lender.join();
  WaitForCount(before + 2);
  absl::MutexLock lock(&mu_);
  ASSERT_EQ(ran_.size(), before + 2);
  EXPECT_EQ(ran_[before].first, "lent");
  EXPECT_EQ(ran_[before + 1].first, "after");
}

// A ticker whose deadline a task brings forward.
class DeadlineTicker : public Ticker {
 public:
  void Tick(absl::Time now) override {
    absl::MutexLock lock(&mu_);
    if (due_ && now >= *due_) {
      due_.reset();
      ticked_.Notify();
    }
  }
  std::optional<absl::Time> NextDeadline() const override {
    absl::MutexLock lock(&mu_);
    return due_;
  }
  void Set(absl::Time due) {
    absl::MutexLock lock(&mu_);
    due_ = due;
  }
  absl::Notification ticked_;

 private:
  mutable absl::Mutex mu_;
  std::optional<absl::Time> due_;
};

TEST_F(LentLoopTest, ADeadlineALentTaskSetsIsKeptByTheLoop) {
  DeadlineTicker ticker;
  loop_.Post([&] { loop_.AddTicker(&ticker); });
  RunHereOnce("warm");
  // Due in a moment: too late for the lent task's own tick, so the loop's
  // thread, which waited with no deadline, must take it up.
  loop_.RunOrPost([&] { ticker.Set(absl::Now() + absl::Milliseconds(50)); });
  EXPECT_TRUE(ticker.ticked_.WaitForNotificationWithTimeout(absl::Seconds(30)));
  absl::Notification removed;
  loop_.Post([&] {
    loop_.RemoveTicker(&ticker);
    removed.Notify();
  });
  removed.WaitForNotification();
}

}  // namespace
}  // namespace raw::acp
