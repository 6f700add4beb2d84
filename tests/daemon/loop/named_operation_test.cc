// A start may carry the id its client chose for the operation, and an
// interrupt may name it: the interrupt stops that operation only, and one
// that reaches the runner before the start it names makes that start end
// CANCELLED before anything is recorded. A real SQLite store and a
// scripted provider.
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/ids.h"
#include "daemon/loop/session_runner.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/stored_rows.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;

class NamedOperationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    book_ = std::make_shared<testing::ScriptBook>();
    absl::StatusOr<store::SessionRecord> record = temp_.store().GetSession(temp_.session_id());
    ASSERT_TRUE(record.ok()) << record.status();
    harness_ = std::make_unique<testing::RunnerHarness>(temp_.store(), clock_);
    runner_ = harness_->Make(*record);
    ASSERT_TRUE(runner_->RecoverUnfinishedTurn().ok());
  }
  void TearDown() override {
    runner_.reset();
    harness_.reset();
  }

  TurnPlan Plan(const std::string& answer) {
    book_->scripts.push_back(testing::TextAnswer(answer));
    TurnPlan plan;
    plan.turn_id = NewId("turn_");  // what the daemon would choose
    plan.user_text = "go";
    plan.cwd = temp_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.max_steps = 5;
    plan.provider = std::make_unique<testing::ScriptedProvider>(book_);
    return plan;
  }

  // Starts a turn named `turn_id` with `plan`; the start's answer.
  absl::StatusOr<std::string> Start(const std::string& turn_id, TurnPlan plan) {
    harness_->QueuePlan(std::move(plan));
    return testing::Await<std::string>([&](Reply<std::string> reply) {
      runner_->StartTurn("go", harness_->lease(*runner_), std::move(reply), {}, turn_id);
    });
  }
  absl::StatusOr<bool> Interrupt(const std::string& operation_id) {
    return testing::Await<bool>([&](Reply<bool> reply) {
      runner_->Interrupt(harness_->lease(*runner_), std::move(reply), operation_id);
    });
  }
  bool AnyOf(const std::string& turn_id) {
    for (const events::SessionEvent& e : temp_.Stored()) {
      if (e.turn_id == turn_id) return true;
    }
    return false;
  }

  testing::TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<testing::ScriptBook> book_;
  std::unique_ptr<testing::RunnerHarness> harness_;
  std::shared_ptr<SessionRunner> runner_;
};

TEST_F(NamedOperationTest, TheTurnTakesTheIdItsClientChose) {
  const std::string id = NewId("turn_");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  absl::StatusOr<std::string> started = Start(id, Plan("hello"));
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_EQ(*started, id);
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, id).ok());
  EXPECT_TRUE(AnyOf(id));

  // An id the session has used is refused, and nothing is recorded.
  const size_t stored = temp_.Stored().size();
  absl::StatusOr<std::string> again = Start(id, Plan("again"));
  EXPECT_EQ(again.status().code(), absl::StatusCode::kInvalidArgument) << again.status();
  EXPECT_THAT(again.status().message(), HasSubstr("already has an operation with id " + id));
  EXPECT_EQ(temp_.Stored().size(), stored);
}

TEST_F(NamedOperationTest, AnInterruptThatOvertakesItsStartCancelsTheStart) {
  const std::string id = NewId("turn_");
  absl::StatusOr<bool> interrupted = Interrupt(id);
  ASSERT_TRUE(interrupted.ok()) << interrupted.status();
  EXPECT_FALSE(*interrupted);  // nothing of that id ran yet
  absl::StatusOr<std::string> started = Start(id, Plan("never"));
  EXPECT_TRUE(absl::IsCancelled(started.status())) << started.status();
  EXPECT_THAT(started.status().message(), HasSubstr("interrupted before it started"));
  EXPECT_FALSE(AnyOf(id));
  EXPECT_FALSE(runner_->running());

  // Remembered once: the next start, with another id, runs.
  book_->scripts.clear();
  const std::string next = NewId("turn_");
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  ASSERT_TRUE(Start(next, Plan("hello")).ok());
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, next).ok());
}

TEST_F(NamedOperationTest, ANamedInterruptStopsOnlyItsOperation) {
  // Shared with the pool's threads, which may still be returning from a wait
  // on them when the test ends.
  auto planning = std::make_shared<absl::Notification>();
  auto go_on = std::make_shared<absl::Notification>();
  auto answered = std::make_shared<absl::Notification>();
  harness_->SetBeforePlan([planning, go_on] {
    planning->Notify();
    go_on->WaitForNotification();
  });
  const std::string id = NewId("turn_");
  auto answer = std::make_shared<std::optional<absl::StatusOr<std::string>>>();
  harness_->QueuePlan(Plan("slow"));
  runner_->StartTurn(
      "go", harness_->lease(*runner_),
      [answer, answered](absl::StatusOr<std::string> r) {
        *answer = std::move(r);
        answered->Notify();
      },
      {}, id);
  planning->WaitForNotification();  // being prepared

  // Another id: not this turn's preparation.
  absl::StatusOr<bool> other = Interrupt(NewId("turn_"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(*other);
  EXPECT_FALSE(answered->HasBeenNotified());

  // Its own id: the preparation is abandoned at once.
  absl::StatusOr<bool> own = Interrupt(id);
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_TRUE(*own);
  answered->WaitForNotification();
  EXPECT_TRUE(absl::IsCancelled(answer->value().status())) << answer->value().status();
  go_on->Notify();
  harness_->SetBeforePlan(nullptr);
  EXPECT_FALSE(AnyOf(id));
}

}  // namespace
}  // namespace raw::loop
