// The write lease changes as commands on the session's queue: in order with
// the session's writes, behind a slow command of their own session only,
// given back when their requester went away, and ended cleanly at shutdown.
#include <future>
#include <memory>
#include <thread>

#include "absl/synchronization/notification.h"
#include "common/ids.h"
#include "daemon/loop/session_runner.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using Acquired = absl::StatusOr<WriteLeases::Acquired>;

// Occupies `runner`'s queue until `release` is notified: an acquire command
// whose answer waits for it, and then gives back what it got (if the lease
// was free). Returns once the command runs.
void Block(SessionRunner& runner, absl::Notification& release) {
  auto running = std::make_shared<absl::Notification>();
  runner.AcquireLease(LeaseClient{"blocker", "test", 0}, WhenHeld::kRefuse, {},
                      [running, &release](const Acquired&) {
                        running->Notify();
                        release.WaitForNotification();
                        return false;
                      });
  running->WaitForNotification();
}

class SessionRunnerLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    record_a_.id = store_.session_id();
    record_a_.agent = "a";
    record_a_.cwd = store_.dir();
    record_b_ = record_a_;
    record_b_.id = NewId();
    ASSERT_TRUE(store_.store().CreateSession(record_b_).ok());
    a_ = harness_.Make(record_a_);
    b_ = harness_.Make(record_b_);
  }

  TurnPlan Plan() {
    TurnPlan plan;
    plan.turn_id = NewId("turn_");
    plan.user_text = "text";
    plan.cwd = store_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.max_steps = 1;
    plan.provider = std::make_unique<testing::ScriptedProvider>(book_);
    return plan;
  }

  // Releases the harness's lease of `runner` and waits until it has run.
  void ReleaseHarnessLease(SessionRunner& runner) {
    auto released = testing::Await<bool>([&](Reply<bool> reply) {
      runner.ReleaseLease(harness_.lease(runner), [reply](absl::Status s) {
        if (s.ok()) return reply(true);
        reply(s);
      });
    });
    ASSERT_TRUE(released.ok()) << released.status();
  }

  SystemClock clock_;
  testing::TempStore store_;
  std::shared_ptr<testing::ScriptBook> book_ = std::make_shared<testing::ScriptBook>();
  store::SessionRecord record_a_, record_b_;
  testing::RunnerHarness harness_{store_.store(), clock_};
  std::shared_ptr<SessionRunner> a_, b_;
};

TEST_F(SessionRunnerLeaseTest, AReleasePostedAfterAStartTurnRunsAfterIt) {
  book_->scripts.push_back(testing::TextAnswer("done"));
  harness_.QueuePlan(Plan());
  absl::Notification release;
  Block(*a_, release);
  std::promise<absl::StatusOr<std::string>> started;
  a_->StartTurn("text", harness_.lease(*a_),
                [&](absl::StatusOr<std::string> turn) { started.set_value(std::move(turn)); });
  std::promise<absl::Status> released;
  a_->ReleaseLease(harness_.lease(*a_), [&](absl::Status s) { released.set_value(s); });
  release.Notify();
  // The turn's lease check ran before the release: the turn started.
  absl::StatusOr<std::string> turn = started.get_future().get();
  EXPECT_TRUE(turn.ok()) << turn.status();
  EXPECT_TRUE(released.get_future().get().ok());
  EXPECT_FALSE(harness_.leases().Holder(record_a_.id).has_value());
}

TEST_F(SessionRunnerLeaseTest, AnAcquireWaitsForASlowCommandOfItsOwnSessionOnly) {
  absl::Notification release;
  Block(*a_, release);
  std::promise<Acquired> on_a;
  std::future<Acquired> on_a_answer = on_a.get_future();
  a_->AcquireLease(LeaseClient{"second", "test", 0}, WhenHeld::kRefuse, {},
                   [&](Acquired acquired) {
                     on_a.set_value(std::move(acquired));
                     return true;
                   });
  // Session B answers while A's queue is still occupied.
  Acquired on_b = harness_.Acquire(*b_, WhenHeld::kRefuse);
  EXPECT_EQ(on_b.status().code(), absl::StatusCode::kFailedPrecondition) << on_b.status();
  EXPECT_EQ(on_a_answer.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  release.Notify();
  Acquired answer = on_a_answer.get();
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kFailedPrecondition) << answer.status();
}

TEST_F(SessionRunnerLeaseTest, AnAcquireWhoseRequesterWentAwayLeavesTheLeaseFree) {
  ReleaseHarnessLease(*a_);
  absl::Notification release;
  Block(*a_, release);
  auto gone = std::make_shared<std::atomic<bool>>(false);
  std::promise<Acquired> answered;
  a_->AcquireLease(LeaseClient{"gone", "test", 0}, WhenHeld::kRefuse, {},
                   [&, gone](Acquired acquired) {
                     answered.set_value(acquired);
                     return !gone->load();
                   });
  gone->store(true);  // the requester leaves before its acquire ran
  release.Notify();
  Acquired acquired = answered.get_future().get();
  ASSERT_TRUE(acquired.ok()) << acquired.status();
  EXPECT_FALSE(acquired->lease_id.empty());
  // It was given back in the same command: the next acquire gets it.
  Acquired holder = harness_.Acquire(*a_, WhenHeld::kRefuse);
  ASSERT_TRUE(holder.ok()) << holder.status();

  // A gone requester's wait is withdrawn: when the holder releases, nobody
  // gets the lease.
  auto granted = std::make_shared<std::atomic<int>>(0);
  LeaseCallbacks callbacks;
  callbacks.granted = [granted](const std::string&) { ++*granted; };
  Acquired waited = testing::Await<WriteLeases::Acquired>([&](Reply<WriteLeases::Acquired> r) {
    a_->AcquireLease(LeaseClient{"gone waiter", "test", 0}, WhenHeld::kRequestHandover, callbacks,
                     [r](Acquired answer) {
                       r(std::move(answer));
                       return false;
                     });
  });
  ASSERT_TRUE(waited.ok()) << waited.status();
  EXPECT_FALSE(waited->wait_id.empty());
  auto released = testing::Await<bool>([&](Reply<bool> reply) {
    a_->ReleaseLease(holder->lease_id, [reply](absl::Status s) {
      if (s.ok()) return reply(true);
      reply(s);
    });
  });
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(granted->load(), 0);
  EXPECT_FALSE(harness_.leases().Holder(record_a_.id).has_value());
}

TEST_F(SessionRunnerLeaseTest, ShutdownWithQueuedLeaseCommandsEnds) {
  absl::Notification release;
  Block(*a_, release);
  std::promise<Acquired> acquire;
  std::promise<absl::Status> released, withdrawn;
  std::promise<absl::StatusOr<int>> declined;
  a_->AcquireLease(LeaseClient{"queued", "test", 0}, WhenHeld::kRefuse, {},
                   [&](Acquired acquired) {
                     acquire.set_value(std::move(acquired));
                     return true;
                   });
  a_->CancelLeaseWait("wait_unknown", [&](absl::Status s) { withdrawn.set_value(s); });
  a_->DeclineHandover(harness_.lease(*a_),
                      [&](absl::StatusOr<int> n) { declined.set_value(std::move(n)); });
  a_->ReleaseLease(harness_.lease(*a_), [&](absl::Status s) { released.set_value(s); });
  std::thread shutdown([&] { harness_.ShutdownAll(); });
  release.Notify();
  shutdown.join();
  // Each queued command ran, once: the acquire was refused (the lease was
  // held, or the runner was stopping), the others did their work.
  EXPECT_FALSE(acquire.get_future().get().ok());
  EXPECT_TRUE(withdrawn.get_future().get().ok());
  absl::StatusOr<int> n = declined.get_future().get();
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 0);
  EXPECT_TRUE(released.get_future().get().ok());
  EXPECT_FALSE(harness_.leases().Holder(record_a_.id).has_value());
  // After shutdown nothing is posted: the answer says so at once.
  std::promise<Acquired> late;
  a_->AcquireLease(LeaseClient{"late", "test", 0}, WhenHeld::kRefuse, {}, [&](Acquired acquired) {
    late.set_value(std::move(acquired));
    return true;
  });
  EXPECT_EQ(late.get_future().get().status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace raw::loop
