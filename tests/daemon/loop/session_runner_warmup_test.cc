// The warm-up (session_runner.h): a lease on a session with a long history
// gets the history serialized ahead of the first request, and nothing that
// changes the context runs while the warm-up has it.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/ids.h"
#include "daemon/context/context_meter.h"
#include "daemon/loop/session_runner.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/scripted_provider.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

constexpr size_t kStoredItems = 8;

// What the provider saw of the kept history when a request went out.
struct SeenRequest {
  uint64_t kept_generation = 0;
  uint64_t request_generation = 0;
  size_t kept_items = 0;
  size_t messages = 0;
  int prepares_done = 0;
};

// Shared by the test and every provider it hands out.
struct WarmBook {
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;       // Prepare waits while set
  bool preparing = false;  // a Prepare has begun
  int prepares_done = 0;
  std::vector<SeenRequest> requests;

  // Waits until `done` holds (false after 20 s, which only bounds a
  // failing test).
  template <typename Done>
  bool WaitUntil(Done done) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), done);
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu);
    hold = false;
    cv.notify_all();
  }
};

// Keeps the history as an adapter does (SerializedHistory::Join), in
// Prepare and in Stream, and answers from the script book.
class WarmingProvider : public providers::Provider {
 public:
  WarmingProvider(std::shared_ptr<WarmBook> warm, std::shared_ptr<testing::ScriptBook> book)
      : warm_(std::move(warm)), scripted_(std::move(book)) {}

  void Prepare(const providers::ModelRequest& request) override {
    {
      std::unique_lock<std::mutex> lock(warm_->mu);
      warm_->preparing = true;
      warm_->cv.notify_all();
      warm_->cv.wait(lock, [&] { return !warm_->hold; });
    }
    Keep(request);
    std::lock_guard<std::mutex> lock(warm_->mu);
    ++warm_->prepares_done;
    warm_->cv.notify_all();
  }

  absl::Status Stream(const providers::ModelRequest& request, providers::ProviderEventSink& sink,
                      const CancelToken& cancel) override {
    {
      std::lock_guard<std::mutex> lock(warm_->mu);
      warm_->requests.push_back(SeenRequest{request.history->generation(),
                                            request.history_generation, request.history->items(),
                                            request.messages.size(), warm_->prepares_done});
      warm_->cv.notify_all();
    }
    Keep(request);
    return scripted_.Stream(request, sink, cancel);
  }

 private:
  static void Keep(const providers::ModelRequest& request) {
    request.history->Join("test", request.history_generation, request.messages,
                          [](const events::ContextItem&, std::string* out) { *out += "{}"; });
  }

  std::shared_ptr<WarmBook> warm_;
  testing::ScriptedProvider scripted_;
};

class SessionRunnerWarmUpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A history as a daemon leaves it: the items and the meter's state.
    store::CommitBatch batch;
    const std::string filler(400, 'x');
    for (size_t i = 0; i < kStoredItems; ++i) {
      if (i % 2 == 0) {
        batch.context_appends.push_back(events::UserText{absl::StrCat("question ", i, filler)});
      } else {
        batch.context_appends.push_back(
            events::AssistantTurn{absl::StrCat("answer ", i, filler), "", {}, {}});
      }
    }
    context::ContextMeter meter;
    meter.Reset(0, batch.context_appends);
    batch.context_meter = meter.Serialize();
    ASSERT_TRUE(store_.store().Commit(store_.session_id(), batch).ok());
  }

  // Makes the runner (taking its lease, which starts a warm-up when the
  // history holds `from_items` items or more).
  void Make(size_t from_items) {
    harness_.EnableWarmUp(from_items, [this]() -> absl::StatusOr<TurnPlan> {
      ++warm_plans_;
      if (!warm_plan_error_.ok()) return warm_plan_error_;
      return Plan("");
    });
    absl::StatusOr<store::SessionRecord> record = store_.store().GetSession(store_.session_id());
    ASSERT_TRUE(record.ok()) << record.status();
    runner_ = harness_.Make(*record);
  }

  TurnPlan Plan(const std::string& text) {
    TurnPlan plan;
    plan.turn_id = NewId("turn_");
    plan.user_text = text;
    plan.cwd = store_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.max_steps = 3;
    plan.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
    plan.provider = std::make_unique<WarmingProvider>(warm_, book_);
    return plan;
  }

  // Starts a turn and waits for its request.
  SeenRequest FirstRequest() {
    book_->scripts.push_back(testing::TextAnswer("ok"));
    EXPECT_TRUE(harness_.StartTurn(*runner_, Plan("next")).ok());
    EXPECT_TRUE(warm_->WaitUntil([&] { return !warm_->requests.empty(); }));
    std::lock_guard<std::mutex> lock(warm_->mu);
    return warm_->requests.empty() ? SeenRequest{} : warm_->requests.front();
  }

  testing::TempStore store_;
  SystemClock clock_;
  std::shared_ptr<WarmBook> warm_ = std::make_shared<WarmBook>();
  std::shared_ptr<testing::ScriptBook> book_ = std::make_shared<testing::ScriptBook>();
  std::atomic<int> warm_plans_{0};
  absl::Status warm_plan_error_;
  testing::RunnerHarness harness_{store_.store(), clock_};
  std::shared_ptr<SessionRunner> runner_;
};

TEST_F(SessionRunnerWarmUpTest, ALeaseOnALongHistoryServesTheFirstRequestSerialized) {
  Make(kStoredItems);
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->prepares_done == 1; }));
  SeenRequest seen = FirstRequest();
  // Only the turn's own prompt was left to serialize.
  EXPECT_EQ(seen.kept_generation, seen.request_generation);
  EXPECT_EQ(seen.kept_items, kStoredItems);
  EXPECT_EQ(seen.messages, kStoredItems + 1);
  EXPECT_EQ(warm_plans_.load(), 1);
}

TEST_F(SessionRunnerWarmUpTest, AShorterHistoryIsLeftToTheFirstRequest) {
  Make(kStoredItems + 1);
  SeenRequest seen = FirstRequest();
  EXPECT_EQ(seen.kept_generation, 0u);
  EXPECT_EQ(seen.kept_items, 0u);
  EXPECT_EQ(seen.messages, kStoredItems + 1);
  EXPECT_EQ(warm_plans_.load(), 0);
}

TEST_F(SessionRunnerWarmUpTest, ATurnStartedDuringTheWarmUpStartsWhenItEnds) {
  warm_->hold = true;
  Make(kStoredItems);
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->preparing; }));
  book_->scripts.push_back(testing::TextAnswer("ok"));
  absl::Status started;
  std::thread prompt([&] { started = harness_.StartTurn(*runner_, Plan("next")); });
  // The turn is prepared, then waits for the warm-up, which has the items.
  EXPECT_TRUE(runner_->AwaitWaitingForWarmUpForTesting(1, absl::Seconds(20)));
  // A serialization that takes 20 ms more: the turn waits that long at
  // least (it cannot start before the release).
  absl::SleepFor(absl::Milliseconds(20));
  warm_->Release();
  prompt.join();
  ASSERT_TRUE(started.ok()) << started;
  ASSERT_TRUE(warm_->WaitUntil([&] { return !warm_->requests.empty(); }));
  {
    std::lock_guard<std::mutex> lock(warm_->mu);
    EXPECT_EQ(warm_->requests[0].prepares_done, 1);
    EXPECT_EQ(warm_->requests[0].kept_items, kStoredItems);
    EXPECT_EQ(warm_->requests[0].messages, kStoredItems + 1);
  }
  // The wait is the first step's: its "before request" phase holds it.
  runner_->Shutdown();  // returns once the turn has ended
  OverheadSummary overhead = runner_->session_state().overhead();
  ASSERT_FALSE(overhead.last_turn.empty());
  EXPECT_GE(overhead.last_turn[0].pre_us, 20'000);
}

TEST_F(SessionRunnerWarmUpTest, AnEstimateDuringTheWarmUpAnswersAtOnceFromTheMeter) {
  warm_->hold = true;
  Make(kStoredItems);
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->preparing; }));
  absl::StatusOr<events::ContextEstimate> during = runner_->Estimate(Plan(""));
  warm_->Release();
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->prepares_done == 1; }));
  absl::StatusOr<events::ContextEstimate> after = runner_->Estimate(Plan(""));
  ASSERT_TRUE(during.ok()) << during.status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_GT(after->tokens, 400);  // 8 items of about 100 tokens
  EXPECT_EQ(during->tokens, after->tokens);
}

// An estimate for a model with another reasoning rule (which re-estimates
// the items) while the warm-up has the items out on its own thread: the
// items are left alone, and the new rule applies once they are back.
TEST_F(SessionRunnerWarmUpTest, AnEstimateForAnotherModelDuringTheWarmUpLeavesTheItemsAlone) {
  warm_->hold = true;
  Make(kStoredItems);
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->preparing; }));
  auto other_model = [this] {
    TurnPlan plan = Plan("");
    plan.agent.model.method = config::kMethodAnthropicMessages;
    plan.agent.model.model_id = "claude-test";
    return plan;
  };
  absl::StatusOr<events::ContextEstimate> during = runner_->Estimate(other_model());
  warm_->Release();
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->prepares_done == 1; }));
  absl::StatusOr<events::ContextEstimate> after = runner_->Estimate(other_model());
  ASSERT_TRUE(during.ok()) << during.status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_GT(during->tokens, 400);  // 8 items of about 100 tokens, none of them reasoning
  EXPECT_EQ(after->tokens, during->tokens);
}

TEST_F(SessionRunnerWarmUpTest, AClearDuringTheWarmUpWaitsAndLeavesNothingBehind) {
  warm_->hold = true;
  Make(kStoredItems);
  ASSERT_TRUE(warm_->WaitUntil([&] { return warm_->preparing; }));
  absl::StatusOr<events::ContextEstimate> cleared;
  std::thread clear([&] { cleared = harness_.Clear(*runner_, Plan("")); });
  EXPECT_TRUE(runner_->AwaitWaitingForWarmUpForTesting(1, absl::Seconds(20)));
  warm_->Release();
  clear.join();
  ASSERT_TRUE(cleared.ok()) << cleared.status();
  // The warm-up handed the items back before /clear dropped them.
  EXPECT_EQ(FirstRequest().messages, 1u);
}

TEST_F(SessionRunnerWarmUpTest, AWarmUpThatCannotPlanLeavesTheTurnToSerialize) {
  warm_plan_error_ = absl::FailedPreconditionError("no such agent");
  Make(kStoredItems);
  SeenRequest seen = FirstRequest();
  EXPECT_EQ(seen.kept_items, 0u);
  EXPECT_EQ(seen.messages, kStoredItems + 1);
  EXPECT_EQ(warm_->prepares_done, 0);
}

}  // namespace
}  // namespace raw::loop
