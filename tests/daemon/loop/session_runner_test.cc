// The turn rules, through SessionRunner with a scripted provider, a real
// SQLite store in a temp dir and test tools.
#include "daemon/loop/session_runner.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <future>
#include <thread>

#include "absl/synchronization/notification.h"

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/runner_harness.h"
#include "tests/daemon/loop/scripted_provider.h"

namespace raw::loop {
namespace {

using testing::CallSpec;
using testing::ScriptBook;
using testing::ScriptedProvider;
using testing::TextAnswer;
using testing::ToolCalls;

// Pulls a Subscription on its own thread, waking on the subscription's
// wakeup (no polling).
class Collector {
 public:
  explicit Collector(std::unique_ptr<Subscription> sub) : sub_(std::move(sub)) {
    sub_->SetWakeup([this] {
      std::lock_guard<std::mutex> lock(mu_);
      ready_ = true;
      cv_.notify_all();
    });
    thread_ = std::thread([this] { Run(); });
  }
  ~Collector() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    thread_.join();
    sub_->Close();
  }
  // Waits until an event satisfies `pred`; returns all events so far.
  std::vector<events::SessionEvent> WaitFor(
      const std::function<bool(const events::SessionEvent&)>& pred) {
    std::unique_lock<std::mutex> lock(mu_);
    bool ok = cv_.wait_for(lock, std::chrono::seconds(20), [&] {
      for (const auto& e : events_) {
        if (pred(e)) return true;
      }
      return false;
    });
    EXPECT_TRUE(ok) << "event not seen";
    return events_;
  }
  std::vector<events::SessionEvent> WaitForTurnEnd(int count = 1) {
    return WaitForCount(
        [](const events::SessionEvent& e) {
          return std::holds_alternative<events::TurnEnded>(e.payload);
        },
        count);
  }
  std::vector<events::SessionEvent> WaitForCount(
      const std::function<bool(const events::SessionEvent&)>& pred, int count) {
    std::unique_lock<std::mutex> lock(mu_);
    bool ok = cv_.wait_for(lock, std::chrono::seconds(20), [&] {
      int n = 0;
      for (const auto& e : events_) n += pred(e) ? 1 : 0;
      return n >= count;
    });
    if (!ok) {
      std::string kinds;
      for (const auto& e : events_) kinds += std::string(events::KindName(e.payload)) + " ";
      ADD_FAILURE() << "events not seen; got: " << kinds;
    }
    return events_;
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      auto next = sub_->TryNext();
      lock.lock();
      if (!next.ok()) return;
      if (next->has_value()) {
        events_.push_back(**next);
        cv_.notify_all();
        continue;
      }
      cv_.wait(lock, [&] { return ready_ || stop_; });
      ready_ = false;
    }
  }
  std::unique_ptr<Subscription> sub_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<events::SessionEvent> events_;
  bool ready_ = false;
  bool stop_ = false;
  std::thread thread_;
};

template <typename T>
std::vector<T> Payloads(const std::vector<events::SessionEvent>& evs) {
  std::vector<T> out;
  for (const auto& e : evs) {
    if (const T* p = std::get_if<T>(&e.payload)) out.push_back(*p);
  }
  return out;
}

std::vector<std::string> Kinds(const std::vector<events::SessionEvent>& evs) {
  std::vector<std::string> out;
  for (const auto& e : evs) out.push_back(events::KindName(e.payload));
  return out;
}

class SessionRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rawloop.XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = store::SessionStore::Open(dir_ + "/s.sqlite3");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    record_.id = NewId();
    record_.agent = "a";
    record_.cwd = dir_;
    ASSERT_TRUE(store_->CreateSession(record_).ok());
    book_ = std::make_shared<ScriptBook>();

    echo_.qualified_name = "test/echo";
    echo_.model_name = "echo";
    echo_.description = "echo";
    echo_.input_schema = OrderedJson::parse(R"({"type":"object"})");
    echo_.handler = [this](const Json& args, const tools::ToolContext&) {
      ++echo_calls_;
      return tools::ToolOutput::Ok(args.value("text", std::string("?")));
    };
    wait_.qualified_name = "test/wait";
    wait_.model_name = "wait";
    wait_.handler = [this](const Json&, const tools::ToolContext& ctx) {
      {
        std::lock_guard<std::mutex> lock(wait_mu_);
        wait_started_ = true;
        wait_cv_.notify_all();
      }
      struct pollfd pfd = {ctx.cancel.fd(), POLLIN, 0};
      while (poll(&pfd, 1, -1) < 0) {
      }
      return tools::ToolOutput::Cancelled("Cancelled while waiting.");
    };
    harness_ = std::make_unique<testing::RunnerHarness>(*store_, clock_);
    runner_ = harness_->Make(record_);
  }
  void TearDown() override {
    harness_.reset();
    runner_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  TurnPlan Plan(const std::string& text, int max_steps = 5) {
    TurnPlan plan;
    plan.turn_id = NewId("turn_");
    plan.user_text = text;
    plan.cwd = dir_;
    plan.agent.agent.name = "a";
    plan.agent.agent.system_prompt = "sys";
    plan.agent.agent.max_steps = max_steps;
    plan.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
    plan.provider = std::make_unique<ScriptedProvider>(book_);
    plan.tools["echo"] = &echo_;
    plan.tools["wait"] = &wait_;
    plan.tool_definitions.push_back({"echo", "echo", echo_.input_schema});
    return plan;
  }
  void WaitForWaitTool() {
    std::unique_lock<std::mutex> lock(wait_mu_);
    ASSERT_TRUE(wait_cv_.wait_for(lock, std::chrono::seconds(20), [&] { return wait_started_; }));
  }

  std::string dir_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  store::SessionRecord record_;
  std::shared_ptr<ScriptBook> book_;
  tools::ToolSpec echo_, wait_;
  std::atomic<int> echo_calls_{0};
  std::mutex wait_mu_;
  std::condition_variable wait_cv_;
  bool wait_started_ = false;
  std::unique_ptr<testing::RunnerHarness> harness_;
  std::shared_ptr<SessionRunner> runner_;
};

TEST_F(SessionRunnerTest, TextAnswerStreamsThenCommits) {
  book_->scripts.push_back(TextAnswer("Hello there"));
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("hi")).ok());
  auto evs = c.WaitForTurnEnd();
  // The context estimate is published before the request and after the
  // answer is committed.
  EXPECT_THAT(Kinds(evs), ::testing::ElementsAre("turn_started", "user_message",
                                                 "context_estimate", "text_delta", "text_delta",
                                                 "assistant_message", "usage_report",
                                                 "context_estimate", "turn_ended"));
  for (size_t i = 1; i < evs.size(); ++i) EXPECT_EQ(evs[i].seq, evs[i - 1].seq + 1);
  EXPECT_EQ(Payloads<events::AssistantMessage>(evs)[0].text, "Hello there");
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kCompleted);
  auto ctx = store_->LoadContext(record_.id);
  ASSERT_TRUE(ctx.ok());
  ASSERT_EQ(ctx->size(), 2u);
  EXPECT_EQ(std::get<events::UserText>((*ctx)[0]).text, "hi");
  EXPECT_EQ(std::get<events::AssistantTurn>((*ctx)[1]).text, "Hello there");
  // The request held the system prompt, the tool schemas and the context.
  ASSERT_EQ(book_->requests.size(), 1u);
  EXPECT_EQ(book_->requests[0].system_prompt, "sys");
  EXPECT_EQ(book_->requests[0].tools.size(), 1u);
  EXPECT_EQ(book_->requests[0].messages.size(), 1u);
}

TEST_F(SessionRunnerTest, ToolBatchCommittedFirstThenRunInOrderWithAResultEach) {
  book_->scripts.push_back(ToolCalls({{"c1", "echo", R"({"text":"one"})"},
                                      {"c2", "nosuch", "{}"},
                                      {"c3", "echo", R"({"text":)"},
                                      {"c4", "echo", R"({"text":"cut"})", false},
                                      {"c5", "echo", R"({"text":"five"})"}}));
  book_->scripts.push_back(TextAnswer("done"));
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("go")).ok());
  auto evs = c.WaitForTurnEnd();
  auto kinds = Kinds(evs);
  auto batch_at = std::find(kinds.begin(), kinds.end(), "tool_call_batch") - kinds.begin();
  auto first_start = std::find(kinds.begin(), kinds.end(), "tool_started") - kinds.begin();
  EXPECT_LT(batch_at, first_start);
  auto results = Payloads<events::ToolResult>(evs);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].call_id, "c1");
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[0].content, "one");
  EXPECT_EQ(results[1].status, events::ToolStatus::kError);
  EXPECT_THAT(results[1].content, ::testing::HasSubstr("unknown tool \"nosuch\""));
  EXPECT_THAT(results[2].content, ::testing::HasSubstr("not valid JSON"));
  EXPECT_THAT(results[3].content, ::testing::HasSubstr("cut off"));
  EXPECT_EQ(results[4].content, "five");
  EXPECT_EQ(echo_calls_.load(), 2);
  // The second request saw all five results after the assistant turn.
  ASSERT_EQ(book_->requests.size(), 2u);
  const auto& msgs = book_->requests[1].messages;
  ASSERT_EQ(msgs.size(), 7u);
  EXPECT_TRUE(std::holds_alternative<events::AssistantTurn>(msgs[1]));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(std::get<events::ToolOutcome>(msgs[2 + i]).call_id, absl::StrCat("c", i + 1));
  }
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kCompleted);
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].steps, 2);
}

TEST_F(SessionRunnerTest, LastPermittedRequestAskingForToolsEndsWithMaxSteps) {
  book_->scripts.push_back(ToolCalls({{"c1", "echo", R"({"text":"a"})"}}));
  book_->scripts.push_back(ToolCalls({{"c2", "echo", R"({"text":"b"})"}}));
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("go", /*max_steps=*/2)).ok());
  auto evs = c.WaitForTurnEnd();
  auto results = Payloads<events::ToolResult>(evs);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[1].status, events::ToolStatus::kSkipped);
  EXPECT_EQ(echo_calls_.load(), 1);
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kMaxSteps);
  EXPECT_EQ(book_->requests.size(), 2u);
}

TEST_F(SessionRunnerTest, CancelDuringToolRecordsCancelledResultsForUnfinishedCalls) {
  book_->scripts.push_back(ToolCalls({{"c1", "echo", R"({"text":"a"})"},
                                      {"c2", "wait", "{}"},
                                      {"c3", "echo", R"({"text":"c"})"}}));
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("go")).ok());
  WaitForWaitTool();
  EXPECT_TRUE(harness_->Interrupt(*runner_));
  auto evs = c.WaitForTurnEnd();
  auto results = Payloads<events::ToolResult>(evs);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[1].status, events::ToolStatus::kCancelled);
  EXPECT_EQ(results[2].status, events::ToolStatus::kCancelled);
  EXPECT_EQ(echo_calls_.load(), 1);
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kCancelled);
  EXPECT_EQ(Payloads<events::TurnEnded>(evs).size(), 1u);
}

TEST_F(SessionRunnerTest, CancelDuringStreamEndsTurnOnceAndKeepsPartialTextOutOfTheContext) {
  testing::Script s;
  s.events.push_back(providers::StartEvent{});
  s.events.push_back(providers::TextDeltaEvent{0, "partial"});
  s.park_until_cancelled = true;
  book_->scripts.push_back(s);
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("go")).ok());
  c.WaitFor([](const events::SessionEvent& e) {
    return std::holds_alternative<events::TextDelta>(e.payload);
  });
  EXPECT_TRUE(harness_->Interrupt(*runner_));
  auto evs = c.WaitForTurnEnd();
  EXPECT_EQ(Payloads<events::TurnEnded>(evs).size(), 1u);
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kCancelled);
  // What the user saw stays in the display history, marked as interrupted.
  ASSERT_EQ(Payloads<events::AssistantMessage>(evs).size(), 1u);
  EXPECT_EQ(Payloads<events::AssistantMessage>(evs)[0].text, "partial");
  EXPECT_TRUE(Payloads<events::AssistantMessage>(evs)[0].interrupted);
  EXPECT_FALSE(runner_->running());
  // It is not a finished message: the model context holds only the prompt.
  auto ctx = store_->LoadContext(record_.id);
  ASSERT_TRUE(ctx.ok());
  ASSERT_EQ(ctx->size(), 1u);
  EXPECT_EQ(std::get<events::UserText>((*ctx)[0]).text, "go");
  // The interrupted request still counts as a request in the totals.
  auto record = store_->GetSession(record_.id);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->usage_requests, 1);

  // The next request carries no cut-off assistant message.
  book_->scripts.push_back(TextAnswer("ok"));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("again")).ok());
  c.WaitForTurnEnd(2);
  ASSERT_EQ(book_->requests.size(), 2u);
  for (const auto& item : book_->requests[1].messages) {
    EXPECT_FALSE(std::holds_alternative<events::AssistantTurn>(item));
  }
  ASSERT_EQ(book_->requests[1].messages.size(), 2u);
  EXPECT_EQ(std::get<events::UserText>(book_->requests[1].messages[1]).text, "again");
}

TEST_F(SessionRunnerTest, ARequestThatReportsNoUsageStillCountsAsARequest) {
  testing::Script s;
  s.events.push_back(providers::StartEvent{});
  s.events.push_back(providers::TextDeltaEvent{0, "answer"});
  s.events.push_back(providers::FinishEvent{providers::FinishReason::kStop, {}});
  book_->scripts.push_back(s);
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("hi")).ok());
  auto evs = c.WaitForTurnEnd();
  EXPECT_TRUE(Payloads<events::UsageReport>(evs).empty());
  auto record = store_->GetSession(record_.id);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->usage_requests, 1);
  EXPECT_EQ(record->usage_coverage.input_tokens, 0);
  EXPECT_EQ(record->usage.input_tokens, std::nullopt);
}

TEST_F(SessionRunnerTest, SecondTurnWhileRunningIsRefused) {
  testing::Script s;
  s.events.push_back(providers::TextDeltaEvent{0, "thinking"});
  s.park_until_cancelled = true;
  book_->scripts.push_back(s);
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("one")).ok());
  // Wait until the provider holds the request, so the interrupt below
  // cancels a parked stream.
  c.WaitFor([](const events::SessionEvent& e) {
    return std::holds_alternative<events::TextDelta>(e.payload);
  });
  absl::Status second = harness_->StartTurn(*runner_, Plan("two"));
  EXPECT_EQ(second.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(second.message()), ::testing::HasSubstr("already has a running turn"));
  harness_->Interrupt(*runner_);
  c.WaitForTurnEnd();
  // Right after TurnEnded a new turn is accepted.
  book_->scripts.push_back(TextAnswer("ok"));
  EXPECT_TRUE(harness_->StartTurn(*runner_, Plan("three")).ok());
  c.WaitForTurnEnd(2);
}

TEST_F(SessionRunnerTest, AnInterruptWhileTheTurnIsPreparedCancelsItBeforeItStarts) {
  absl::Notification preparing, release;
  std::atomic<bool> held{false};
  harness_->SetBeforePlan([&] {
    if (held.exchange(true)) return;  // only the first preparation is slow
    preparing.Notify();
    release.WaitForNotification();
  });
  auto started = std::make_shared<std::promise<absl::StatusOr<std::string>>>();
  auto reply = started->get_future();
  runner_->StartTurn("slow to prepare", harness_->lease(*runner_),
                     [started](absl::StatusOr<std::string> r) { started->set_value(r); });
  ASSERT_TRUE(preparing.WaitForNotificationWithTimeout(absl::Seconds(20)));
  // The queue is free while the plan is built: the interrupt is answered,
  // and it ends the turn at once, while the slow step is still running.
  EXPECT_TRUE(harness_->Interrupt(*runner_));
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  absl::StatusOr<std::string> result = reply.get();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(std::string(result.status().message()),
              ::testing::HasSubstr("interrupted before it started"));
  EXPECT_FALSE(runner_->running());
  auto stored = store_->ReadEvents(record_.id, 0, 100);
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->empty());

  // The session takes the next turn before the abandoned step returns.
  book_->scripts.push_back(TextAnswer("ok"));
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("next")).ok());
  auto evs = c.WaitForTurnEnd();
  EXPECT_EQ(Payloads<events::TurnEnded>(evs)[0].reason, events::TurnEndReason::kCompleted);

  // When the abandoned step returns, the plan it built is dropped unused:
  // its destruction is the event to wait for.
  auto dropped = std::make_shared<absl::Notification>();
  auto used = std::make_shared<std::atomic<bool>>(false);
  struct NotifyOnDestruction {
    std::shared_ptr<absl::Notification> n;
    ~NotifyOnDestruction() { n->Notify(); }
  };
  TurnPlan late = Plan("late");
  auto guard = std::make_shared<NotifyOnDestruction>();
  guard->n = dropped;
  late.attach_mcp = [guard = std::move(guard), used](TurnPlan&, const CancelToken&) {
    used->store(true);
    return absl::OkStatus();
  };
  harness_->QueuePlan(std::move(late));
  release.Notify();
  ASSERT_TRUE(dropped->WaitForNotificationWithTimeout(absl::Seconds(20)));
  EXPECT_FALSE(used->load());
  EXPECT_EQ(book_->requests.size(), 1u);
  EXPECT_FALSE(runner_->running());
}

// A turn that ends while its MCP servers start (interrupted, or one that
// cannot start) has stored its prompt: the next request holds it, as the
// session's context reloaded from the store would.
TEST_F(SessionRunnerTest, APromptStoredBeforeMcpServersFailedIsInTheNextRequest) {
  Collector c(runner_->Subscribe(0));
  TurnPlan interrupted = Plan("first");
  interrupted.attach_mcp = [](TurnPlan&, const CancelToken&) {
    return absl::CancelledError("interrupted while servers start");
  };
  ASSERT_TRUE(harness_->StartTurn(*runner_, std::move(interrupted)).ok());
  c.WaitForTurnEnd(1);
  TurnPlan failed = Plan("second");
  failed.attach_mcp = [](TurnPlan&, const CancelToken&) {
    return absl::UnavailableError("the server exited");
  };
  ASSERT_TRUE(harness_->StartTurn(*runner_, std::move(failed)).ok());
  c.WaitForTurnEnd(2);
  book_->scripts.push_back(TextAnswer("ok"));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("third")).ok());
  auto evs = c.WaitForTurnEnd(3);
  auto ends = Payloads<events::TurnEnded>(evs);
  ASSERT_EQ(ends.size(), 3u);
  EXPECT_EQ(ends[0].reason, events::TurnEndReason::kCancelled);
  EXPECT_EQ(ends[1].reason, events::TurnEndReason::kError);
  EXPECT_EQ(ends[2].reason, events::TurnEndReason::kCompleted);

  auto texts = [](const std::vector<events::ContextItem>& items) {
    std::vector<std::string> out;
    for (const auto& item : items) {
      if (const auto* u = std::get_if<events::UserText>(&item)) out.push_back(u->text);
      if (const auto* a = std::get_if<events::AssistantTurn>(&item)) out.push_back(a->text);
    }
    return out;
  };
  ASSERT_EQ(book_->requests.size(), 1u);
  EXPECT_THAT(texts(book_->requests[0].messages),
              ::testing::ElementsAre("first", "second", "third"));
  auto stored = store_->LoadContext(record_.id);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_THAT(texts(*stored), ::testing::ElementsAre("first", "second", "third", "ok"));
}

TEST_F(SessionRunnerTest, ASlowPreparationInOneSessionNeverDelaysAnother) {
  store::SessionRecord other = record_;
  other.id = NewId();
  ASSERT_TRUE(store_->CreateSession(other).ok());
  auto second = harness_->Make(other);
  absl::Notification preparing, release;
  std::atomic<bool> held{false};
  harness_->SetBeforePlan([&] {
    if (held.exchange(true)) return;  // only the first preparation is slow
    preparing.Notify();
    release.WaitForNotification();
  });
  harness_->QueuePlan(Plan("slow"));
  auto slow = std::make_shared<std::promise<absl::StatusOr<std::string>>>();
  auto slow_reply = slow->get_future();
  runner_->StartTurn("slow", harness_->lease(*runner_),
                     [slow](absl::StatusOr<std::string> r) { slow->set_value(r); });
  ASSERT_TRUE(preparing.WaitForNotificationWithTimeout(absl::Seconds(20)));

  // The other session runs a whole turn meanwhile.
  book_->scripts.push_back(TextAnswer("quick"));
  Collector c(second->Subscribe(0));
  TurnPlan quick = Plan("quick");
  quick.session_id = other.id;
  ASSERT_TRUE(harness_->StartTurn(*second, std::move(quick)).ok());
  c.WaitForTurnEnd();
  EXPECT_EQ(slow_reply.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  release.Notify();
  ASSERT_EQ(slow_reply.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_TRUE(harness_->Interrupt(*runner_) || !runner_->running());
}

TEST_F(SessionRunnerTest, WritesWithoutTheLeaseAreRefusedAndNothingRuns) {
  auto refused = testing::Await<std::string>([&](Reply<std::string> reply) {
    runner_->StartTurn("hi", "lease_of_nobody", std::move(reply));
  });
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("\"test\""));
  auto interrupted = testing::Await<bool>(
      [&](Reply<bool> reply) { runner_->Interrupt("", std::move(reply)); });
  EXPECT_EQ(interrupted.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(book_->requests.empty());
}

TEST_F(SessionRunnerTest, ProviderErrorAfterOutputResetsStreamAndEndsWithError) {
  testing::Script s;
  s.events.push_back(providers::StartEvent{});
  s.events.push_back(providers::TextDeltaEvent{0, "Partial"});
  providers::ErrorEvent err;
  err.kind = providers::ErrorKind::kServer;
  err.retryable = true;
  err.after_output = true;
  err.message = "The server had an error";
  s.events.push_back(err);
  book_->scripts.push_back(s);
  Collector c(runner_->Subscribe(0));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("go")).ok());
  auto evs = c.WaitForTurnEnd();
  EXPECT_EQ(Payloads<events::StreamReset>(evs).size(), 1u);
  EXPECT_TRUE(Payloads<events::AssistantMessage>(evs).empty());
  auto end = Payloads<events::TurnEnded>(evs)[0];
  EXPECT_EQ(end.reason, events::TurnEndReason::kError);
  EXPECT_THAT(end.message, ::testing::HasSubstr("The server had an error"));
  // Nothing from the failed step reached the model context.
  auto ctx = store_->LoadContext(record_.id);
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(ctx->size(), 1u);
}

TEST_F(SessionRunnerTest, ReplayAfterSeqHasNoGapAndNoDuplicate) {
  book_->scripts.push_back(TextAnswer("first answer"));
  {
    Collector c(runner_->Subscribe(0));
    ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("one")).ok());
    c.WaitForTurnEnd();
  }
  // Stored events of turn one: replay from the middle.
  auto all = store_->ReadEvents(record_.id, 0, 1000);
  ASSERT_TRUE(all.ok());
  ASSERT_GE(all->size(), 4u);
  uint64_t mid = (*all)[1].seq;
  book_->scripts.push_back(TextAnswer("second answer"));
  Collector c(runner_->Subscribe(mid));
  ASSERT_TRUE(harness_->StartTurn(*runner_, Plan("two")).ok());
  auto evs = c.WaitForTurnEnd(2);
  EXPECT_GT(evs.front().seq, mid);
  for (size_t i = 1; i < evs.size(); ++i) EXPECT_GT(evs[i].seq, evs[i - 1].seq);
  // Every stored event after `mid` was delivered exactly once.
  auto stored = store_->ReadEvents(record_.id, mid, 1000);
  ASSERT_TRUE(stored.ok());
  for (const auto& s : *stored) {
    int n = 0;
    for (const auto& e : evs) n += e.seq == s.seq ? 1 : 0;
    EXPECT_EQ(n, 1) << "seq " << s.seq;
  }
}

}  // namespace
}  // namespace raw::loop

namespace raw::loop {
namespace {

// Subscribers receive detached copies: a client that changes what it
// received (here: rewrites the arguments shown for approval) changes neither
// what runs nor what another subscriber or the store sees.
TEST_F(SessionRunnerTest, SubscribersGetDetachedCopiesOfAuthorizedArguments) {
  book_->scripts.push_back(ToolCalls({{"c1", "echo", R"({"text":"original"})"}}));
  book_->scripts.push_back(TextAnswer("done"));
  Collector tamperer(runner_->Subscribe(0));
  Collector witness(runner_->Subscribe(0));
  TurnPlan plan = Plan("go");
  plan.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  ASSERT_TRUE(harness_->StartTurn(*runner_, std::move(plan)).ok());
  auto is_request = [](const events::SessionEvent& e) {
    return std::holds_alternative<events::ApprovalRequested>(e.payload);
  };
  std::vector<events::SessionEvent> seen = tamperer.WaitFor(is_request);
  std::string request_id;
  for (auto& e : seen) {
    if (auto* r = std::get_if<events::ApprovalRequested>(&e.payload)) {
      request_id = r->request_id;
      r->calls[0].arguments = R"({"text":"tampered"})";
    }
    if (auto* b = std::get_if<events::ToolCallBatch>(&e.payload)) {
      b->calls[0].arguments = R"({"text":"tampered"})";
    }
  }
  ASSERT_FALSE(request_id.empty());
  ASSERT_TRUE(harness_
                  ->RespondToApproval(*runner_, request_id, {},
                                      events::ApprovalAnswer{"", events::ApprovalDecision::kAllowOnce,
                                                             ""})
                  .ok());
  auto evs = witness.WaitForTurnEnd();
  auto results = Payloads<events::ToolResult>(evs);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].content, "original");
  EXPECT_EQ(Payloads<events::ToolCallBatch>(evs)[0].calls[0].arguments, R"({"text":"original"})");
  EXPECT_EQ(Payloads<events::ApprovalRequested>(evs)[0].calls[0].arguments,
            R"({"text":"original"})");
}

}  // namespace
}  // namespace raw::loop
