// ToolBatch: one batch of tool calls under the tool contract —
// preparation, rules, one approval request per batch, the calls in the
// model's order, exactly one result each, cancellation, and the step's
// events stored with the first commit. Real SQLite in a
// temp dir; the approval is answered from the subscription's wakeup, which
// runs right after the request is stored.
#include "daemon/loop/tool_batch.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/loop/session_state.h"
#include "daemon/loop/turn.h"
#include "daemon/raven/domain.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/registry.h"
#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/temp_store.h"

namespace raw::loop {
namespace {

using testing::Drain;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using testing::KindsOf;
using ::testing::Not;
using testing::TempStore;

CollectedCall Call(const std::string& id, const std::string& name, const std::string& args,
                   bool complete = true) {
  return CollectedCall{events::ToolCallRequest{id, name, args}, complete};
}

template <typename T>
std::vector<T> PayloadsOf(const std::vector<events::SessionEvent>& evs) {
  std::vector<T> out;
  for (const auto& e : evs) {
    if (const T* p = std::get_if<T>(&e.payload)) out.push_back(*p);
  }
  return out;
}

// A hook for `event` that runs `true`.
config::HookConfig TrueHook(config::HookEvent event) {
  config::HookConfig hook;
  hook.name = "true";
  hook.event = event;
  hook.command = {"true"};
  return hook;
}

class ToolBatchTest : public ::testing::Test {
 protected:
  ToolBatchTest() {
    echo_.qualified_name = "test/echo";
    echo_.model_name = "echo";
    echo_.input_schema = OrderedJson::parse(R"({"type":"object"})");
    echo_.handler = [this](const Json& args, const tools::ToolContext&) {
      ran_.push_back(args.value("text", std::string("?")));
      if (cancel_during_ == ran_.back()) cancel_.Cancel("interrupted");
      return tools::ToolOutput::Ok("echo: " + ran_.back());
    };
    plan_.session_id = temp_.session_id();
    plan_.turn_id = "turn_1";
    plan_.cwd = temp_.dir();
    plan_.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
    plan_.tools["echo"] = &echo_;
    plan_.session = std::make_shared<SessionState>();
  }

  absl::Status Run(const std::vector<CollectedCall>& calls,
                   std::optional<LeadingCommit> leading = std::nullopt) {
    TurnHooks hooks(plan_.hooks, plan_.session_id, plan_.cwd, plan_.withheld_env, plan_.turn_id,
                    *log_, cancel_);
    ToolBatch batch(plan_, *log_, context_, hooks, cancel_);
    if (leading) batch.Lead(*std::move(leading));
    return batch.Run(calls);
  }

  // An assistant message with its tool-call batch, as a step leads a batch
  // with them; `committed_` counts the callback's runs and records the
  // context's size at that moment.
  LeadingCommit Leading(const std::vector<CollectedCall>& calls) {
    LeadingCommit leading;
    events::AssistantTurn item;
    item.text = "on it";
    events::ToolCallBatch batch;
    for (const CollectedCall& c : calls) {
      batch.calls.push_back({c.request.call_id, c.request.name, "test/echo", c.request.arguments});
      item.tool_calls.push_back(c.request);
    }
    leading.payloads = {events::AssistantMessage{"on it", "", 1}, std::move(batch)};
    leading.extras.context_appends.push_back(item);
    leading.extras.conversation_activity = true;
    leading.committed = [this] {
      ++committed_;
      context_at_commit_ = context_.size();
      context_.push_back(events::AssistantTurn{});  // what the turn does
    };
    return leading;
  }

  // The kinds of the events each commit stored, one group per commit (the
  // subscription's wakeup runs right after every commit).
  void RecordCommits() {
    watcher_ = log_->Subscribe(0);
    Drain(*watcher_);
    watcher_->SetWakeup([this] { commits_.push_back(KindsOf(Drain(*watcher_))); });
  }

  // Answers the batch's approval request with `answers` as soon as it is
  // stored (the wakeup runs on the turn thread right after the commit;
  // the broker already knows the request).
  void AnswerWith(std::vector<events::ApprovalAnswer> answers) {
    watcher_ = log_->Subscribe(0);
    Drain(*watcher_);
    watcher_->SetWakeup([this, answers] {
      ApprovalBroker& broker = plan_.session->approvals();
      const std::string request = broker.open_request();
      if (!request.empty()) {
        EXPECT_TRUE(broker.Respond(request, answers, std::nullopt).ok());
      }
    });
  }

  TempStore temp_;
  SystemClock clock_;
  std::shared_ptr<SessionLog> log_ =
      std::make_shared<SessionLog>(temp_.session_id(), 0, temp_.store(), clock_);
  tools::ToolSpec echo_;
  TurnPlan plan_;
  std::vector<events::ContextItem> context_;
  CancelToken cancel_;
  std::vector<std::string> ran_;
  std::string cancel_during_;
  std::unique_ptr<Subscription> watcher_;
  int committed_ = 0;
  size_t context_at_commit_ = 0;
  std::vector<std::vector<std::string>> commits_;
};

// A step's assistant message and its calls go into the same transaction as
// the first call's start when the call runs without asking: two commits
// for the step rather than three. The model context gets the assistant's
// item first, then the call's outcome, in the store as in memory.
TEST_F(ToolBatchTest, TheLeadingEventsAreStoredWithTheFirstCallsStart) {
  RecordCommits();
  const std::vector<CollectedCall> calls = {Call("c1", "echo", R"({"text":"a"})"),
                                            Call("c2", "echo", R"({"text":"b"})")};
  ASSERT_TRUE(Run(calls, Leading(calls)).ok());
  EXPECT_THAT(ran_, ElementsAre("a", "b"));
  EXPECT_THAT(commits_,
              ElementsAre(ElementsAre("assistant_message", "tool_call_batch", "tool_started"),
                          ElementsAre("tool_result"), ElementsAre("tool_started"),
                          ElementsAre("tool_result")));
  EXPECT_EQ(committed_, 1);
  EXPECT_EQ(context_at_commit_, 0u) << "the callback runs before any result joins the context";
  std::vector<events::ContextItem> stored = *temp_.store().LoadContext(temp_.session_id());
  ASSERT_EQ(stored.size(), 3u);
  EXPECT_EQ(std::get<events::AssistantTurn>(stored[0]).text, "on it");
  EXPECT_EQ(std::get<events::ToolOutcome>(stored[1]).call_id, "c1");
  EXPECT_EQ(std::get<events::ToolOutcome>(stored[2]).call_id, "c2");
}

// Nothing waits while the step's events are unstored: an approval request
// carries them, so they are in the store while the user decides.
TEST_F(ToolBatchTest, AnApprovalRequestCarriesTheLeadingEvents) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  AnswerWith({});
  std::vector<std::string> stored_at_request;
  watcher_->SetWakeup([this, &stored_at_request] {
    ApprovalBroker& broker = plan_.session->approvals();
    if (broker.open_request().empty()) return;
    stored_at_request = KindsOf(temp_.Stored());
    EXPECT_TRUE(broker
                    .Respond(broker.open_request(),
                             {{"c1", events::ApprovalDecision::kAllowOnce, ""}}, std::nullopt)
                    .ok());
  });
  const std::vector<CollectedCall> calls = {Call("c1", "echo", R"({"text":"a"})")};
  ASSERT_TRUE(Run(calls, Leading(calls)).ok());
  EXPECT_THAT(stored_at_request,
              ElementsAre("assistant_message", "tool_call_batch", "approval_requested"));
  EXPECT_THAT(ran_, ElementsAre("a"));
  EXPECT_EQ(committed_, 1);
}

// A hook is a program that may take its time: with one configured, the
// step's events are stored on their own before it runs.
TEST_F(ToolBatchTest, WithAHookTheLeadingEventsAreStoredBeforeItRuns) {
  plan_.hooks = {TrueHook(config::HookEvent::kPreToolUse)};
  RecordCommits();
  const std::vector<CollectedCall> calls = {Call("c1", "echo", R"({"text":"a"})")};
  ASSERT_TRUE(Run(calls, Leading(calls)).ok());
  EXPECT_THAT(ran_, ElementsAre("a"));
  ASSERT_FALSE(commits_.empty());
  EXPECT_THAT(commits_.front(), ElementsAre("assistant_message", "tool_call_batch"));
}

// A hook's input is made only for a hook that runs: a tool's whole output
// is not copied into a value no hook reads.
TEST_F(ToolBatchTest, HookFieldsAreMadeOnlyForAHookThatRuns) {
  plan_.hooks = {TrueHook(config::HookEvent::kPostToolUse)};
  TurnHooks hooks(plan_.hooks, plan_.session_id, plan_.cwd, plan_.withheld_env, plan_.turn_id,
                  *log_, cancel_);
  int made = 0;
  auto fields = [&made] {
    ++made;
    return Json::object();
  };
  hooks.Fire(config::HookEvent::kPreToolUse, "test/echo", fields);
  hooks.Fire(config::HookEvent::kTurnEnd, "", fields);
  EXPECT_EQ(made, 0);
  hooks.Fire(config::HookEvent::kPostToolUse, "test/echo", fields);
  EXPECT_EQ(made, 1);
}

// However the batch ends, the step's events are stored, once: with the
// cancelled results of a batch cancelled before its calls ran, and on
// their own when the batch fails before any commit.
TEST_F(ToolBatchTest, ACancelledBatchStoresTheLeadingEventsWithItsResults) {
  const std::vector<CollectedCall> calls = {Call("c1", "echo", R"({"text":"a"})")};
  cancel_.Cancel("interrupted");
  ASSERT_TRUE(Run(calls, Leading(calls)).ok());
  EXPECT_TRUE(ran_.empty());
  EXPECT_THAT(KindsOf(temp_.Stored()),
              ElementsAre("assistant_message", "tool_call_batch", "tool_result"));
  EXPECT_EQ(committed_, 1);
}

TEST_F(ToolBatchTest, ABatchThatFailsStillStoresTheLeadingEvents) {
  plan_.session = nullptr;  // an approval without a session is an error
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  const std::vector<CollectedCall> calls = {Call("c1", "echo", R"({"text":"a"})")};
  EXPECT_FALSE(Run(calls, Leading(calls)).ok());
  EXPECT_TRUE(ran_.empty());
  EXPECT_THAT(KindsOf(temp_.Stored()), ElementsAre("assistant_message", "tool_call_batch"));
  EXPECT_EQ(committed_, 1);
}

// Calls run in the model's order; each gets one stored result, and its
// outcome is appended to the model context in the same order. Invalid
// calls get an error result and never run, including a call whose stream
// was cut off even though its arguments happen to parse.
TEST_F(ToolBatchTest, EveryCallGetsOneResultInTheModelsOrder) {
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})"), Call("c2", "nope", "{}"),
                   Call("c3", "echo", R"({"text":"b"})"), Call("c4", "echo", R"({"text":"d"})", false),
                   Call("c5", "echo", "not json")})
                  .ok());
  EXPECT_THAT(ran_, ElementsAre("a", "b"));
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_THAT(KindsOf(stored),
              ElementsAre("tool_started", "tool_result", "tool_result", "tool_started",
                          "tool_result", "tool_result", "tool_result"));
  auto results = PayloadsOf<events::ToolResult>(stored);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[0].content, "echo: a");
  EXPECT_EQ(results[0].tool, "test/echo");
  EXPECT_EQ(results[1].status, events::ToolStatus::kError);
  EXPECT_THAT(results[1].content, HasSubstr("unknown tool \"nope\""));
  EXPECT_EQ(results[2].content, "echo: b");
  EXPECT_EQ(results[3].status, events::ToolStatus::kError);
  EXPECT_THAT(results[3].content, HasSubstr("cut off"));
  EXPECT_EQ(results[4].status, events::ToolStatus::kError);

  ASSERT_EQ(context_.size(), 5u);
  std::vector<std::string> ids;
  for (const auto& item : context_) ids.push_back(std::get<events::ToolOutcome>(item).call_id);
  EXPECT_THAT(ids, ElementsAre("c1", "c2", "c3", "c4", "c5"));
  EXPECT_FALSE(std::get<events::ToolOutcome>(context_[0]).is_error);
  EXPECT_TRUE(std::get<events::ToolOutcome>(context_[1]).is_error);
  // What the model sees is what the store holds.
  EXPECT_EQ(*temp_.store().LoadContext(temp_.session_id()), context_);
}

TEST_F(ToolBatchTest, ACallTheRulesDenyNeverRuns) {
  auto rules = tools::policy::RuleSet::Compile(
      {config::RuleConfig{config::RuleAction::kDeny, "test/echo", std::nullopt, std::nullopt,
                          std::nullopt}},
      "agents.a.rules");
  ASSERT_TRUE(rules.ok()) << rules.status();
  plan_.rules = *std::move(rules);
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})")}).ok());
  EXPECT_TRUE(ran_.empty());
  auto results = PayloadsOf<events::ToolResult>(temp_.Stored());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kDenied);
  EXPECT_THAT(results[0].content, HasSubstr("Denied: this call was not run"));
  EXPECT_TRUE(std::get<events::ToolOutcome>(context_[0]).is_error);
}

// One request lists the whole batch; each answer applies to its call, and
// a user's denial message reaches the model.
TEST_F(ToolBatchTest, OneApprovalRequestForTheWholeBatch) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  AnswerWith({{"c1", events::ApprovalDecision::kAllowOnce, ""},
              {"c2", events::ApprovalDecision::kDeny, "not that one"}});
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})"), Call("c2", "echo", R"({"text":"b"})"),
                   Call("c3", "nope", "{}")})
                  .ok());
  EXPECT_THAT(ran_, ElementsAre("a"));
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_THAT(KindsOf(stored),
              ElementsAre("approval_requested", "approval_resolved", "tool_started", "tool_result",
                          "tool_result", "tool_result"));
  auto request = PayloadsOf<events::ApprovalRequested>(stored).at(0);
  ASSERT_EQ(request.calls.size(), 3u);
  EXPECT_EQ(request.calls[0].state, events::ApprovalState::kPending);
  EXPECT_EQ(request.calls[1].state, events::ApprovalState::kPending);
  EXPECT_EQ(request.calls[2].state, events::ApprovalState::kNotApplicable);
  auto resolved = PayloadsOf<events::ApprovalResolved>(stored).at(0);
  EXPECT_EQ(resolved.request_id, request.request_id);
  EXPECT_EQ(resolved.resolution, events::ApprovalResolution::kAnswered);
  auto results = PayloadsOf<events::ToolResult>(stored);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[1].status, events::ToolStatus::kDenied);
  EXPECT_THAT(results[1].content, HasSubstr("Message from the user: not that one"));
  EXPECT_EQ(results[2].status, events::ToolStatus::kError);
}

// Calls that share an id cannot be told apart by an answer (one "allow"
// would cover all of them) or by their results: none of them runs or is
// put to the user, whatever the rules say; the batch's other calls go on.
TEST_F(ToolBatchTest, CallsSharingAnIdAreDeniedWithoutAsking) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  AnswerWith({{"c2", events::ApprovalDecision::kAllowOnce, ""}});  // c1 is not asked
  ASSERT_TRUE(
      Run({Call("c1", "echo", R"({"text":"harmless"})"), Call("c2", "echo", R"({"text":"b"})"),
           Call("c1", "echo", R"({"text":"dangerous"})")})
          .ok());
  EXPECT_THAT(ran_, ElementsAre("b"));
  std::vector<events::SessionEvent> stored = temp_.Stored();
  auto request = PayloadsOf<events::ApprovalRequested>(stored).at(0);
  ASSERT_EQ(request.calls.size(), 3u);
  EXPECT_EQ(request.calls[0].state, events::ApprovalState::kDenied);
  EXPECT_EQ(request.calls[1].state, events::ApprovalState::kPending);
  EXPECT_EQ(request.calls[2].state, events::ApprovalState::kDenied);
  auto results = PayloadsOf<events::ToolResult>(stored);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kDenied);
  EXPECT_THAT(results[0].content, HasSubstr("gave the id \"c1\" to more than one call"));
  EXPECT_EQ(results[1].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[2].status, events::ToolStatus::kDenied);

  // Even with every call allowed by the mode, none sharing an id runs.
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAllowAll;
  ran_.clear();
  ASSERT_TRUE(
      Run({Call("d", "echo", R"({"text":"x"})"), Call("d", "echo", R"({"text":"y"})")}).ok());
  EXPECT_TRUE(ran_.empty());
}

// "Allow for this session" adds a session rule: the next batch does not ask.
TEST_F(ToolBatchTest, AllowForTheSessionIsRemembered) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  AnswerWith({{"c1", events::ApprovalDecision::kAllowSession, ""}});
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})")}).ok());
  ASSERT_TRUE(Run({Call("c2", "echo", R"({"text":"b"})")}).ok());
  EXPECT_THAT(ran_, ElementsAre("a", "b"));
  EXPECT_EQ(PayloadsOf<events::ApprovalRequested>(temp_.Stored()).size(), 1u);
}

TEST_F(ToolBatchTest, UnansweredApprovalTimesOutAsADenial) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  plan_.agent.agent.approval_timeout_ms = 1;  // nobody answers
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})")}).ok());
  EXPECT_TRUE(ran_.empty());
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_EQ(PayloadsOf<events::ApprovalResolved>(stored).at(0).resolution,
            events::ApprovalResolution::kTimedOut);
  EXPECT_EQ(PayloadsOf<events::ToolResult>(stored).at(0).status, events::ToolStatus::kDenied);
}

// Cancelled while waiting for approval: the request resolves as cancelled
// and every call gets a cancelled result.
TEST_F(ToolBatchTest, CancelWhileWaitingForApproval) {
  plan_.agent.agent.approval_mode = config::ApprovalMode::kAskAll;
  watcher_ = log_->Subscribe(0);
  Drain(*watcher_);
  watcher_->SetWakeup([this] { cancel_.Cancel("interrupted"); });
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})"), Call("c2", "echo", "{}")}).ok());
  EXPECT_TRUE(ran_.empty());
  std::vector<events::SessionEvent> stored = temp_.Stored();
  EXPECT_EQ(PayloadsOf<events::ApprovalResolved>(stored).at(0).resolution,
            events::ApprovalResolution::kCancelled);
  auto results = PayloadsOf<events::ToolResult>(stored);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kCancelled);
  EXPECT_EQ(results[1].status, events::ToolStatus::kCancelled);
}

// A cancel during a call keeps that call's result; the calls after it get
// cancelled results without running.
TEST_F(ToolBatchTest, CancelDuringACallKeepsCompletedResults) {
  cancel_during_ = "b";
  ASSERT_TRUE(Run({Call("c1", "echo", R"({"text":"a"})"), Call("c2", "echo", R"({"text":"b"})"),
                   Call("c3", "echo", R"({"text":"c"})")})
                  .ok());
  EXPECT_THAT(ran_, ElementsAre("a", "b"));
  auto results = PayloadsOf<events::ToolResult>(temp_.Stored());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[1].status, events::ToolStatus::kOk);
  EXPECT_EQ(results[2].status, events::ToolStatus::kCancelled);
  EXPECT_EQ(context_.size(), 3u);
}

TEST_F(ToolBatchTest, SkipRecordsASkippedResultForEveryCall) {
  TurnHooks hooks(plan_.hooks, plan_.session_id, plan_.cwd, plan_.withheld_env, plan_.turn_id,
                  *log_, cancel_);
  ToolBatch batch(plan_, *log_, context_, hooks, cancel_);
  ASSERT_TRUE(batch.Skip({Call("c1", "echo", "{}"), Call("c2", "nope", "{}")}, "step limit").ok());
  EXPECT_TRUE(ran_.empty());
  auto results = PayloadsOf<events::ToolResult>(temp_.Stored());
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    EXPECT_EQ(r.status, events::ToolStatus::kSkipped);
    EXPECT_EQ(r.content, "step limit");
  }
  EXPECT_EQ(context_.size(), 2u);
}

// A call that never reaches its handler — refused arguments, or a turn
// cancelled first — gets the tool's not_run_note, made from the metadata
// of the tool's earlier results in the session; an unknown tool has none.
TEST_F(ToolBatchTest, ACallThatNeverRunsCarriesItsToolsNote) {
  Json schema = {
      {"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", {"n"}}};
  tools::ToolSpec noted;
  noted.qualified_name = "test/noted";
  noted.model_name = "noted";
  noted.input_schema = OrderedJson::parse(schema.dump());
  auto validator = tools::SchemaValidator::Compile(schema);
  ASSERT_TRUE(validator.ok()) << validator.status();
  noted.validator = *validator;
  noted.handler = [](const Json& args, const tools::ToolContext&) {
    tools::ToolOutput out = tools::ToolOutput::Ok("ran");
    out.meta = "record-" + std::to_string(args.at("n").get<int>());
    return out;
  };
  noted.not_run_note = [](const std::vector<std::string>& prior_meta) {
    return prior_meta.empty() ? std::string() : "<note " + prior_meta.back() + ">";
  };
  plan_.tools["noted"] = &noted;

  ASSERT_TRUE(Run({Call("c0", "noted", R"({"n":"zero"})")}).ok());
  ASSERT_TRUE(Run({Call("c1", "noted", R"({"n":1})")}).ok());
  ASSERT_TRUE(Run({Call("c2", "noted", R"({"n":"two"})"), Call("c3", "noted", "not json"),
                   Call("c4", "noted", R"({"n":4})", false), Call("c5", "nope", "{}")})
                  .ok());
  cancel_.Cancel("interrupted");
  ASSERT_TRUE(Run({Call("c6", "noted", R"({"n":6})")}).ok());

  auto results = PayloadsOf<events::ToolResult>(temp_.Stored());
  ASSERT_EQ(results.size(), 7u);
  EXPECT_EQ(results[0].status, events::ToolStatus::kError);
  EXPECT_THAT(results[0].content, Not(HasSubstr("<note")))
      << "the note is \"\" while the tool has no earlier record";
  EXPECT_EQ(results[1].content, "ran");
  for (size_t i : {2, 3, 4}) {
    EXPECT_EQ(results[i].status, events::ToolStatus::kError) << i;
    EXPECT_THAT(results[i].content, EndsWith("\n<note record-1>")) << i;
  }
  EXPECT_THAT(results[2].content, HasSubstr("/n"));
  EXPECT_THAT(results[5].content, Not(HasSubstr("<note")));
  EXPECT_EQ(results[6].status, events::ToolStatus::kCancelled);
  EXPECT_EQ(results[6].content,
            "Cancelled: the turn was interrupted before this call ran.\n<note record-1>");
  // The model sees what the store holds.
  EXPECT_EQ(std::get<events::ToolOutcome>(context_.back()).content, results[6].content);
}

// builtin/raven_task: a call the schema refuses (an unknown enum value, an
// unknown field, a missing field) still names the session's Task and tells
// the model to correct the call rather than start another Task.
TEST_F(ToolBatchTest, ASchemaRefusedRavenTaskCallCarriesTheRecoveryBlock) {
  tools::ToolRegistry registry;
  ASSERT_TRUE(tools::RegisterBuiltinTools(registry).ok());
  const tools::ToolSpec* raven = registry.FindQualified("builtin/raven_task");
  ASSERT_NE(raven, nullptr);
  plan_.tools["raven_task"] = raven;
  ASSERT_TRUE(Run({Call("c1", "raven_task",
                        R"({"action":"start","outcome":"learning","request":"Explain tides"})")})
                  .ok());
  ASSERT_TRUE(Run({Call("c2", "raven_task", R"({"action":"start","outcome":"poetry"})"),
                   Call("c3", "raven_task", R"({"action":"status","colour":1})"),
                   Call("c4", "raven_task", R"({"request":"Explain tides"})")})
                  .ok());
  auto results = PayloadsOf<events::ToolResult>(temp_.Stored());
  ASSERT_EQ(results.size(), 4u);
  ASSERT_EQ(results[0].status, events::ToolStatus::kOk) << results[0].content;
  const std::string task = raven::MakeTaskId(temp_.session_id(), 1);
  for (size_t i : {1, 2, 3}) {
    EXPECT_EQ(results[i].status, events::ToolStatus::kError) << i;
    EXPECT_THAT(results[i].content, HasSubstr("arguments do not match the schema of raven_task"))
        << i;
    EXPECT_THAT(results[i].content, HasSubstr("\n<raven_task_recovery>\nThe current Task is " +
                                              task + " (phase active"))
        << i;
    EXPECT_THAT(results[i].content, EndsWith("</raven_task_recovery>")) << i;
  }
}

// A result that cannot be stored stops the batch with the store's error.
TEST_F(ToolBatchTest, StoreFailureStopsTheBatch) {
  ASSERT_TRUE(temp_.store().DeleteSession(temp_.session_id()).ok());
  absl::Status status = Run({Call("c1", "echo", R"({"text":"a"})")});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(context_.empty());
}

}  // namespace
}  // namespace raw::loop
