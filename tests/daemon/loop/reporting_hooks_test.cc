// The hooks that report (post_tool_use, turn_end) run after what they report
// is stored: a daemon stopped while one runs (up to its timeout) keeps the
// call's result and the turn's end, instead of recording a call that
// finished as one that may not have run, or a turn that ended as failed.
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <variant>
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

template <typename T>
std::vector<T> Stored(testing::TempStore& temp) {
  std::vector<T> out;
  for (const events::SessionEvent& e : temp.Stored()) {
    if (const T* p = std::get_if<T>(&e.payload)) out.push_back(*p);
  }
  return out;
}

class ReportingHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    started_ = temp_.dir() + "/started.fifo";
    release_ = temp_.dir() + "/release.fifo";
    ASSERT_EQ(mkfifo(started_.c_str(), 0600), 0);
    ASSERT_EQ(mkfifo(release_.c_str(), 0600), 0);
    echo_.qualified_name = "test/echo";
    echo_.model_name = "echo";
    echo_.input_schema = OrderedJson::parse(R"({"type":"object"})");
    echo_.handler = [](const Json& args, const tools::ToolContext&) {
      return tools::ToolOutput::Ok(args.value("text", std::string("?")));
    };
    absl::StatusOr<store::SessionRecord> record = temp_.store().GetSession(temp_.session_id());
    ASSERT_TRUE(record.ok()) << record.status();
    runner_ = harness_.Make(*record);
  }

  // A turn whose only hook says it started, then waits for ReleaseHook.
  TurnPlan Plan(config::HookEvent event) {
    TurnPlan plan;
    plan.turn_id = NewId("turn_");
    plan.user_text = "go";
    plan.cwd = temp_.dir();
    plan.agent.agent.name = "a";
    plan.agent.agent.max_steps = 3;
    plan.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
    plan.provider = std::make_unique<testing::ScriptedProvider>(book_);
    plan.tools["echo"] = &echo_;
    plan.tool_definitions.push_back({"echo", "echo", echo_.input_schema});
    config::HookConfig hook;
    hook.name = "blocks";
    hook.event = event;
    hook.command = {"/bin/sh", "-c", "echo started > started.fifo; read line < release.fifo"};
    plan.hooks.push_back(hook);
    return plan;
  }

  // Returns once the hook has opened started.fifo and written to it.
  void WaitForTheHook() {
    std::ifstream started(started_);
    std::string line;
    std::getline(started, line);
  }
  void ReleaseTheHook() { std::ofstream(release_) << "go\n"; }

  testing::TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<testing::ScriptBook> book_ = std::make_shared<testing::ScriptBook>();
  tools::ToolSpec echo_;
  std::string started_, release_;
  testing::RunnerHarness harness_{temp_.store(), clock_};
  std::shared_ptr<SessionRunner> runner_;
};

TEST_F(ReportingHooksTest, ACallsResultIsStoredBeforeItsPostToolUseHookRuns) {
  book_->scripts.push_back(testing::ToolCalls({{"c1", "echo", R"({"text":"it ran"})"}}));
  book_->scripts.push_back(testing::TextAnswer("done"));
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  TurnPlan plan = Plan(config::HookEvent::kPostToolUse);
  const std::string turn_id = plan.turn_id;
  ASSERT_TRUE(harness_.StartTurn(*runner_, std::move(plan)).ok());
  WaitForTheHook();
  // While the hook runs, the result is in the store as the call left it.
  std::vector<events::ToolResult> results = Stored<events::ToolResult>(temp_);
  ReleaseTheHook();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].call_id, "c1");
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[0].content, "it ran");
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, turn_id).ok());
  EXPECT_EQ(Stored<events::ToolResult>(temp_).size(), 1u);
}

TEST_F(ReportingHooksTest, ATurnsEndIsStoredBeforeItsTurnEndHookRunsAndAPromptMeanwhileWaits) {
  book_->scripts.push_back(testing::TextAnswer("the answer"));
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  TurnPlan plan = Plan(config::HookEvent::kTurnEnd);
  const std::string turn_id = plan.turn_id;
  ASSERT_TRUE(harness_.StartTurn(*runner_, std::move(plan)).ok());
  WaitForTheHook();
  // While the hook runs, the end is stored and the session reads idle.
  std::vector<events::TurnEnded> ends = Stored<events::TurnEnded>(temp_);
  const bool running_during_the_hook = runner_->running();
  // A prompt sent meanwhile is not refused as busy: it starts once the hook
  // is over.
  book_->scripts.push_back(testing::TextAnswer("again"));
  TurnPlan next = Plan(config::HookEvent::kTurnEnd);
  next.hooks.clear();
  const std::string next_id = next.turn_id;
  absl::Status next_started;
  std::thread prompt([&] { next_started = harness_.StartTurn(*runner_, std::move(next)); });
  const bool deferred = runner_->AwaitDeferredForTesting(1, absl::Seconds(20));
  ReleaseTheHook();
  prompt.join();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0].reason, events::TurnEndReason::kCompleted);
  EXPECT_FALSE(running_during_the_hook);
  EXPECT_TRUE(deferred);
  ASSERT_TRUE(next_started.ok()) << next_started;
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, next_id).ok());
  // Each end is stored once.
  EXPECT_EQ(Stored<events::TurnEnded>(temp_).size(), 2u);
}

TEST_F(ReportingHooksTest, AReleaseAfterAWaitingPromptLetsThePromptStartFirst) {
  book_->scripts.push_back(testing::TextAnswer("the answer"));
  std::unique_ptr<Subscription> sub = runner_->Subscribe(0);
  ASSERT_TRUE(harness_.StartTurn(*runner_, Plan(config::HookEvent::kTurnEnd)).ok());
  WaitForTheHook();
  book_->scripts.push_back(testing::TextAnswer("again"));
  TurnPlan next = Plan(config::HookEvent::kTurnEnd);
  next.hooks.clear();
  const std::string next_id = next.turn_id;
  absl::Status next_started;
  std::thread prompt([&] { next_started = harness_.StartTurn(*runner_, std::move(next)); });
  const bool prompt_waits = runner_->AwaitDeferredForTesting(1, absl::Seconds(20));
  // The client that sent the prompt lets go of the session before the
  // prompt could start: the release waits behind it.
  absl::Notification released;
  runner_->ReleaseLease(harness_.lease(*runner_), [&](absl::Status) { released.Notify(); });
  const bool release_waits = runner_->AwaitDeferredForTesting(2, absl::Seconds(20));
  const bool released_early = released.HasBeenNotified();
  ReleaseTheHook();
  prompt.join();
  released.WaitForNotification();
  EXPECT_TRUE(prompt_waits);
  EXPECT_TRUE(release_waits);
  EXPECT_FALSE(released_early);
  ASSERT_TRUE(next_started.ok()) << next_started;
  ASSERT_TRUE(testing::ReadUntilTurnEnds(*sub, next_id).ok());
  EXPECT_FALSE(harness_.leases().Holder(runner_->session_id()).has_value());
}

}  // namespace
}  // namespace raw::loop
