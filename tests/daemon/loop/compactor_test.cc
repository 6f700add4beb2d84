// RunCompaction with a scripted summarizer and a real SessionLog over a
// SQLite store in a temp dir.
#include "daemon/loop/compactor.h"

#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "daemon/context/compaction_plan.h"
#include "daemon/context/context_meter.h"
#include "daemon/context/summary.h"
#include "daemon/context/token_estimate.h"
#include "daemon/providers/provider_factory.h"
#include "daemon/providers/retrying_provider.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/loop/scripted_provider.h"

namespace raw::loop {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using events::CompactionOutcome;
using testing::Script;
using testing::ScriptBook;
using testing::ScriptedProvider;

Script Summary(const std::string& text,
               providers::FinishReason reason = providers::FinishReason::kStop) {
  Script s;
  s.events.push_back(providers::StartEvent{"resp", "test-model"});
  s.events.push_back(providers::ReasoningDeltaEvent{0, "thinking about it"});
  s.events.push_back(providers::TextDeltaEvent{0, text.substr(0, text.size() / 2)});
  s.events.push_back(providers::TextDeltaEvent{0, text.substr(text.size() / 2)});
  events::Usage usage;
  usage.input_tokens = 900;
  usage.output_tokens = 20;
  s.events.push_back(providers::UsageEvent{usage});
  s.events.push_back(providers::FinishEvent{reason, ""});
  return s;
}

class SettableClock : public Clock {
 public:
  int64_t NowUnixMs() const override { return now; }
  int64_t now = 4'000'000'000'000;  // later than the session's creation
};

// Delegates to a ScriptedProvider and cancels `token` after `after` streams.
class CancellingProvider : public providers::Provider {
 public:
  CancellingProvider(std::shared_ptr<ScriptBook> book, CancelToken& token, int after)
      : inner_(std::move(book)), token_(token), after_(after) {}
  absl::Status Stream(const providers::ModelRequest& request, providers::ProviderEventSink& sink,
                      const CancelToken& cancel) override {
    absl::Status status = inner_.Stream(request, sink, cancel);
    if (++streams_ == after_) token_.Cancel("interrupted");
    return status;
  }

 private:
  ScriptedProvider inner_;
  CancelToken& token_;
  int after_;
  int streams_ = 0;
};

class CompactorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rawcompact.XXXXXX";
    dir_ = mkdtemp(tmpl);
    auto store = store::SessionStore::Open(dir_ + "/s.sqlite3");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    record_.id = NewId();
    record_.agent = "a";
    record_.cwd = dir_;
    ASSERT_TRUE(store_->CreateSession(record_).ok());
    log_ = std::make_shared<SessionLog>(record_.id, 0, *store_, clock_);
    book_ = std::make_shared<ScriptBook>();
  }
  void TearDown() override {
    log_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Records turn `n` the way a turn does: display events plus its context
  // items (prompt, a tool call, its output, an answer).
  void AddTurn(int n, const std::string& output = "", const std::string& reasoning = "") {
    const std::string turn_id = absl::StrCat("turn", n);
    const std::string prompt = absl::StrCat("prompt ", n, n == 1 ? " (the task)" : "");
    first_seq_[turn_id] = log_->last_seq() + 1;
    CommitExtras extras;
    extras.context_appends.push_back(
        events::UserText(prompt, events::UserTextKind::kPrompt, turn_id));
    extras.conversation_activity = true;
    ASSERT_TRUE(log_->Commit(turn_id, {events::TurnStarted{prompt}, events::UserMessage{prompt}},
                             std::move(extras))
                    .ok());
    events::AssistantTurn call;
    call.tool_calls.push_back({absl::StrCat("c", n), "read_file", R"({"path":"notes.png"})"});
    events::AssistantTurn answer;
    answer.text = absl::StrCat("answer ", n, ": ", std::string(400, 'a'));
    call.reasoning = reasoning;
    CommitExtras more;
    more.context_appends = {call,
                            events::ToolOutcome{absl::StrCat("c", n), "read_file",
                                                output.empty() ? std::string(2000, 'o') : output,
                                                false},
                            answer};
    ASSERT_TRUE(log_->Commit(turn_id,
                             {events::AssistantMessage{answer.text, "", 1},
                              events::TurnEnded{events::TurnEndReason::kCompleted, "", 1, {}}},
                             std::move(more))
                    .ok());
  }

  // Records the prompt of turn `n` and `steps` steps of it (a call and its
  // result each), as a turn still running has them.
  void AddRunningTurn(int n, int steps) {
    const std::string turn_id = absl::StrCat("turn", n);
    const std::string prompt = absl::StrCat("prompt ", n);
    first_seq_[turn_id] = log_->last_seq() + 1;
    CommitExtras extras;
    extras.context_appends.push_back(
        events::UserText(prompt, events::UserTextKind::kPrompt, turn_id));
    ASSERT_TRUE(log_->Commit(turn_id, {events::TurnStarted{prompt}, events::UserMessage{prompt}},
                             std::move(extras))
                    .ok());
    for (int i = 1; i <= steps; ++i) {
      events::AssistantTurn call;
      call.tool_calls.push_back({absl::StrCat("s", i), "read_file", R"({"path":"big.log"})"});
      CommitExtras more;
      more.context_appends = {call, events::ToolOutcome{absl::StrCat("s", i), "read_file",
                                                        std::string(4000, 'l'), false}};
      ASSERT_TRUE(log_->Commit(turn_id, {events::Notice{events::NoticeLevel::kInfo, "step"}},
                               std::move(more))
                      .ok());
    }
  }

  std::vector<events::ContextItem> Context() {
    auto ctx = store_->LoadContext(record_.id);
    EXPECT_TRUE(ctx.ok()) << ctx.status();
    return ctx.ok() ? *ctx : std::vector<events::ContextItem>{};
  }

  std::vector<events::SessionEvent> Stored(uint64_t after = 0) {
    auto evs = store_->ReadEvents(record_.id, after, 1000);
    EXPECT_TRUE(evs.ok()) << evs.status();
    return evs.ok() ? *evs : std::vector<events::SessionEvent>{};
  }

  CompactionRequest Request() {
    CompactionRequest r;
    r.settings.keep_recent_turns = 2;
    r.runtime_tokens = 50;
    r.turn_id = "op1";
    return r;
  }

  CompactionResult Run(const CompactionRequest& request, providers::Provider& provider,
                       const CancelToken& cancel) {
    const auto context = Context();
    const auto copy = context;
    CompactionResult result =
        RunCompaction(request, context, provider, *log_, cancel, [this](const std::string& id) {
          auto it = first_seq_.find(id);
          return it == first_seq_.end() ? uint64_t{0} : it->second;
        });
    EXPECT_EQ(context, copy);  // never modified
    return result;
  }
  CompactionResult Run(const CompactionRequest& request) {
    ScriptedProvider provider(book_);
    CancelToken cancel;
    return Run(request, provider, cancel);
  }

  // Kinds of the stored events after `after`.
  std::vector<std::string> StoredKinds(uint64_t after) {
    std::vector<std::string> out;
    for (const auto& e : Stored(after)) out.push_back(events::KindName(e.payload));
    return out;
  }

  // Checks a compaction that did not change the context.
  void ExpectUnchanged(const CompactionResult& result, const std::vector<events::ContextItem>& before,
                       uint64_t seq_before, CompactionOutcome outcome) {
    EXPECT_EQ(result.ended.outcome, outcome);
    EXPECT_FALSE(result.context.has_value());
    EXPECT_EQ(Context(), before);
    std::vector<std::string> kinds = StoredKinds(seq_before);
    std::erase(kinds, "usage_report");  // the summary requests' (see below)
    EXPECT_THAT(kinds, ElementsAre("compaction_started", "compaction_ended"));
    auto stored = std::get<events::CompactionEnded>(Stored(seq_before).back().payload);
    EXPECT_EQ(stored, result.ended);
    EXPECT_EQ(result.ended.tokens_after, result.ended.tokens_before);
    EXPECT_EQ(store_->GetSession(record_.id)->compactions, 0);
  }

  std::string dir_;
  SettableClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  store::SessionRecord record_;
  std::shared_ptr<SessionLog> log_;
  std::shared_ptr<ScriptBook> book_;
  std::map<std::string, uint64_t> first_seq_;
};

TEST_F(CompactorTest, AcceptedSummaryReplacesOlderTurnsInOneCommit) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  const int64_t activity_before = store_->GetSession(record_.id)->last_activity_unix_ms;
  clock_.now += 60'000;
  auto sub = log_->Subscribe(seq_before);
  book_->scripts.push_back(Summary("- read notes.png twice\n- answered"));
  CompactionRequest request = Request();
  const int64_t tokens_before = 50 + context::EstimateItemsTokens(before);
  CompactionResult result = Run(request);

  const auto& ended = result.ended;
  EXPECT_EQ(ended.outcome, CompactionOutcome::kAccepted) << ended.message;
  EXPECT_EQ(ended.trigger, events::CompactionTrigger::kManual);
  EXPECT_EQ(ended.tokens_before, tokens_before);
  ASSERT_TRUE(result.context.has_value());
  // [task, summary, turn 3, turn 4], stored in the same commit as the end.
  const auto& ctx = *result.context;
  ASSERT_EQ(ctx.size(), 2u + 8u);
  EXPECT_EQ(ctx[0], before[0]);
  const auto& summary = std::get<events::UserText>(ctx[1]);
  EXPECT_EQ(summary.kind, events::UserTextKind::kSummary);
  EXPECT_THAT(summary.text, HasSubstr("- read notes.png twice\n- answered"));
  EXPECT_THAT(summary.text, Not(HasSubstr("thinking")));
  EXPECT_EQ(std::vector<events::ContextItem>(ctx.begin() + 2, ctx.end()),
            std::vector<events::ContextItem>(before.begin() + 8, before.end()));
  EXPECT_EQ(Context(), ctx);
  EXPECT_EQ(ended.summary, summary.text);
  EXPECT_EQ(ended.tokens_after, 50 + context::EstimateItemsTokens(ctx));
  EXPECT_LT(ended.tokens_after, ended.tokens_before);
  // Display items of turns 1 and 2 were summarized.
  EXPECT_EQ(ended.first_summarized_seq, first_seq_["turn1"]);
  EXPECT_EQ(ended.last_summarized_seq, first_seq_["turn3"] - 1);

  // The summary request's usage is stored before the end.
  auto stored = Stored(seq_before);
  ASSERT_EQ(stored.size(), 3u);
  EXPECT_EQ(std::get<events::CompactionStarted>(stored[0].payload),
            (events::CompactionStarted{events::CompactionTrigger::kManual, tokens_before, 1}));
  EXPECT_EQ(std::get<events::UsageReport>(stored[1].payload).usage.input_tokens, 900);
  EXPECT_EQ(std::get<events::CompactionEnded>(stored[2].payload), ended);
  EXPECT_EQ(stored[2].turn_id, "op1");
  // The display history is whole.
  EXPECT_EQ(Stored().size(), seq_before + 3);
  auto session = store_->GetSession(record_.id);
  ASSERT_TRUE(session.ok());
  // Compaction is not conversation activity: expiry does not move.
  EXPECT_EQ(session->last_activity_unix_ms, activity_before);
  // The compaction is counted, and the estimate state stored with the new
  // context describes it (a whole estimate, no stale baseline).
  EXPECT_EQ(session->compactions, 1);
  EXPECT_NE(session->context_meter, "");
  context::ContextMeter meter;
  meter.Restore(session->context_meter, 50, ctx);
  EXPECT_EQ(meter.tokens(), ended.tokens_after);
  EXPECT_FALSE(meter.reported_baseline());
  // Progress was published live, between the two.
  std::vector<std::string> live;
  while (true) {
    auto next = sub->TryNext();
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    live.push_back(events::KindName((*next)->payload));
    if (auto* p = std::get_if<events::CompactionProgress>(&(*next)->payload)) {
      EXPECT_EQ(p->chunk, 1);
      EXPECT_EQ(p->chunks, 1);
    }
  }
  EXPECT_THAT(live, ElementsAre("compaction_started", "compaction_progress", "usage_report",
                                "compaction_ended"));

  // The summarizer's usage is in the session's totals already, and handed
  // back.
  EXPECT_EQ(session->usage_requests, 1);
  EXPECT_EQ(session->usage.input_tokens, 900);
  ASSERT_EQ(result.usage.size(), 1u);
  ASSERT_TRUE(result.usage[0].has_value());
  EXPECT_EQ(result.usage[0]->input_tokens, 900);
  EXPECT_EQ(result.usage[0]->output_tokens, 20);

  // The summary request: no tools, the transcript of turns 1 (after the
  // task) and 2.
  ASSERT_EQ(book_->requests.size(), 1u);
  const auto& sent = book_->requests[0];
  EXPECT_TRUE(sent.tools.empty());
  EXPECT_FALSE(sent.system_prompt.empty());
  ASSERT_EQ(sent.messages.size(), 1u);
  const std::string& transcript = std::get<events::UserText>(sent.messages[0]).text;
  EXPECT_THAT(transcript, HasSubstr("answer 1"));
  EXPECT_THAT(transcript, HasSubstr("prompt 2"));
  EXPECT_THAT(transcript, Not(HasSubstr("prompt 1")));
  EXPECT_THAT(transcript, Not(HasSubstr("prompt 3")));
}

TEST_F(CompactorTest, SummaryNotShorterIsRejected) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary(std::string(20000, 'x')));
  auto result = Run(Request());
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(result.ended.message, HasSubstr("not shorter"));
}

TEST_F(CompactorTest, EmptySummaryIsRejected) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary("  \n "));
  auto result = Run(Request());
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(result.ended.message, HasSubstr("empty"));
}

TEST_F(CompactorTest, ASummaryRequestThatReportsNoUsageStillCountsAsARequest) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  Script summary = Summary("- short");
  std::erase_if(summary.events, [](const providers::ProviderEvent& e) {
    return std::holds_alternative<providers::UsageEvent>(e);
  });
  book_->scripts.push_back(summary);
  auto result = Run(Request());
  EXPECT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  // One request was sent: it counts in the request total, with no usage.
  ASSERT_EQ(result.usage.size(), 1u);
  EXPECT_FALSE(result.usage[0].has_value());
  auto session = store_->GetSession(record_.id);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->usage_requests, 1);
  EXPECT_FALSE(session->usage.input_tokens.has_value());
}

// A summary request that reported usage and then failed, and was retried,
// counts in the totals as a request of its own, with its usage.
TEST_F(CompactorTest, ARetriedSummaryRequestIsCountedWithItsUsage) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  Script failed;
  failed.events.push_back(providers::StartEvent{"resp", "test-model"});
  failed.events.push_back(providers::TextDeltaEvent{0, "- half of"});
  events::Usage usage;
  usage.input_tokens = 500;
  failed.events.push_back(providers::UsageEvent{usage});
  providers::ErrorEvent error;
  error.kind = providers::ErrorKind::kServer;
  error.retryable = true;
  error.message = "the connection was reset";
  failed.events.push_back(error);
  book_->scripts.push_back(failed);
  book_->scripts.push_back(Summary("- short"));
  providers::RetryingProvider provider(
      std::make_unique<ScriptedProvider>(book_), providers::RetryPolicy{},
      [](int64_t, const CancelToken&) { return true; }, [] { return 0.0; });
  CancelToken cancel;
  auto result = Run(Request(), provider, cancel);
  EXPECT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  EXPECT_THAT(result.ended.summary, HasSubstr("- short"));
  EXPECT_THAT(result.ended.summary, Not(HasSubstr("half of"))) << "the failed attempt's text";
  ASSERT_EQ(result.usage.size(), 2u);
  ASSERT_TRUE(result.usage[0].has_value());
  EXPECT_EQ(result.usage[0]->input_tokens, 500);
  ASSERT_TRUE(result.usage[1].has_value());
  EXPECT_EQ(result.usage[1]->input_tokens, 900);
  auto session = store_->GetSession(record_.id);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->usage_requests, 2);
  EXPECT_EQ(session->usage.input_tokens, 1400);
}

TEST_F(CompactorTest, EverySummaryRequestIsCountedBeforeTheCompactionEnds) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary("- short"));
  // The end is recorded right after this: what is stored by then survives
  // a crash between the two.
  int64_t requests_at_end = -1;
  CompactionRequest request = Request();
  request.before_end = [&] { requests_at_end = store_->GetSession(record_.id)->usage_requests; };
  auto result = Run(request);
  EXPECT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  EXPECT_EQ(requests_at_end, 1);
  EXPECT_THAT(StoredKinds(seq_before),
              ElementsAre("compaction_started", "usage_report", "compaction_ended"));
}

// The meter may rest on a provider's count, which is on another scale than
// the estimate of the new context: both figures are whole estimates.
TEST_F(CompactorTest, BeforeAndAfterAreEstimatedAlike) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  book_->scripts.push_back(Summary("- read notes.png twice\n- answered"));
  auto result = Run(Request());
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  EXPECT_EQ(result.ended.tokens_before, 50 + context::EstimateItemsTokens(before));
  ASSERT_TRUE(result.context.has_value());
  EXPECT_EQ(result.ended.tokens_after, 50 + context::EstimateItemsTokens(*result.context));
  EXPECT_LT(result.ended.tokens_after, result.ended.tokens_before);
}

// Reasoning the model's requests never send back is not part of what it
// receives, so it is not something a summary replaces: a summary longer
// than what the older turns send is rejected, however much reasoning they
// hold. Where the requests send it back (reasoning_content "send", on the
// messages that made calls), the same summary is accepted.
TEST_F(CompactorTest, ReasoningNotSentBackIsNotCountedAsReplaced) {
  for (int n = 1; n <= 4; ++n) AddTurn(n, "", std::string(40000, 'r'));
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  const std::string summary(6000, 's');  // longer than the turns send, not their reasoning
  book_->scripts.push_back(Summary(summary));
  CompactionRequest request = Request();  // the default rule sends no reasoning back
  auto result = Run(request);
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_EQ(result.ended.tokens_before, 50 + context::EstimateItemsTokens(before));
  EXPECT_THAT(result.ended.message, HasSubstr("not shorter"));

  config::ModelConfig sends;
  sends.method = config::kMethodOpenAiChat;
  sends.send_reasoning_content = true;
  request.reasoning = providers::ReasoningRuleFor(sends);
  book_->scripts.push_back(Summary(summary));
  result = Run(request);
  EXPECT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  EXPECT_EQ(result.ended.tokens_before,
            50 + context::EstimateItemsTokens(before, request.reasoning));
}

// A summary just shorter than the text it replaces still adds a message of
// its own: when the new context is not smaller, nothing changes.
TEST_F(CompactorTest, ANewContextThatIsNotSmallerIsRejected) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  CompactionRequest request = Request();
  const int64_t replaced =
      context::PlanCompaction(before, request.settings, std::nullopt, false).replaced_tokens;
  // A summary one token shorter than what it replaces: with its message's
  // overhead the new context is larger than the old one.
  const size_t preamble = context::JoinChunkSummaries({"s"}).size() - 1;
  book_->scripts.push_back(Summary(std::string(4 * (replaced - 1) - preamble, 's')));
  auto result = Run(request);
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(result.ended.message, HasSubstr("not smaller than before"));
}

TEST_F(CompactorTest, AnAutomaticCompactionThatWouldStillBeTooLargeIsNotCommitted) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary("- read notes.png twice\n- answered"));
  CompactionRequest request = Request();
  request.trigger = events::CompactionTrigger::kAutomatic;
  request.fit_tokens = 100;  // far below what the kept turns alone need
  auto result = Run(request);
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(result.ended.message, HasSubstr("would still exceed compact.trigger_tokens (100)"));
}

// With the meter's calibration ratio (a model that counts twice Raw's
// estimate), the sizes before and after are on the model's scale; then a
// trigger the compacted context meets only by the estimate rejects it.
TEST_F(CompactorTest, SizesAndTheTriggerCheckAreOnTheModelsScale) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  book_->scripts.push_back(Summary("- read notes.png twice\n- answered"));
  CompactionRequest request = Request();
  request.trigger = events::CompactionTrigger::kAutomatic;
  request.scale_permille = 2000;
  request.fit_tokens = 1'000'000;
  auto result = Run(request);
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  ASSERT_TRUE(result.context.has_value());
  const int64_t after_estimate =
      request.runtime_tokens + context::EstimateItemsTokens(*result.context, request.reasoning);
  EXPECT_EQ(result.ended.tokens_before,
            2 * (request.runtime_tokens + context::EstimateItemsTokens(before, request.reasoning)));
  EXPECT_EQ(result.ended.tokens_after, 2 * after_estimate);

  // A fresh session's copy of the same context, under a trigger between the
  // two sizes: rejected, the context unchanged.
  CompactorTest::TearDown();
  CompactorTest::SetUp();
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto again = Context();
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary("- read notes.png twice\n- answered"));
  request.fit_tokens = 2 * after_estimate - 1;
  auto rejected = Run(request);
  ExpectUnchanged(rejected, again, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(rejected.ended.message, HasSubstr("would still exceed compact.trigger_tokens"));
}

TEST_F(CompactorTest, SummaryCutByTheOutputCapIsRejected) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  book_->scripts.push_back(Summary("- the user wanted", providers::FinishReason::kLength));
  auto result = Run(Request());
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kRejected);
  EXPECT_THAT(result.ended.message, HasSubstr("output cap"));
}

TEST_F(CompactorTest, FailingRequestKeepsTheContextAndReportsTheProvidersMessage) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  Script s;
  s.events.push_back(providers::StartEvent{});
  s.events.push_back(providers::TextDeltaEvent{0, "- partial"});
  providers::ErrorEvent error;
  error.kind = providers::ErrorKind::kOverloaded;
  error.message = "the model is overloaded";
  s.events.push_back(error);
  book_->scripts.push_back(s);
  auto result = Run(Request());
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kFailed);
  EXPECT_THAT(result.ended.message, HasSubstr("the model is overloaded"));
}

TEST_F(CompactorTest, ResponseWithoutAFinishFails) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  Script s;
  s.events.push_back(providers::StartEvent{});
  s.events.push_back(providers::TextDeltaEvent{0, "- partial"});
  book_->scripts.push_back(s);
  auto result = Run(Request());
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kFailed);
  EXPECT_THAT(result.ended.message, HasSubstr("without finishing"));
}

TEST_F(CompactorTest, CancelledDuringTheRequestKeepsTheContext) {
  for (int n = 1; n <= 3; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  Script s;
  s.events.push_back(providers::StartEvent{});
  s.park_until_cancelled = true;
  book_->scripts.push_back(s);
  CancelToken cancel;
  // The token is cancelled while the request is parked: the provider
  // cancels it itself once it holds the request.
  class CancelInside : public providers::Provider {
   public:
    CancelInside(std::shared_ptr<ScriptBook> book, CancelToken& token)
        : inner_(std::move(book)), token_(token) {}
    absl::Status Stream(const providers::ModelRequest& request,
                        providers::ProviderEventSink& sink, const CancelToken& cancel) override {
      token_.Cancel("interrupted");
      return inner_.Stream(request, sink, cancel);
    }
    ScriptedProvider inner_;
    CancelToken& token_;
  } provider(book_, cancel);
  auto result = Run(Request(), provider, cancel);
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kCancelled);
  EXPECT_THAT(result.ended.message, HasSubstr("cancelled"));
}

TEST_F(CompactorTest, CancelledBetweenChunksMakesNoFurtherRequest) {
  for (int n = 1; n <= 8; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  CompactionRequest request = Request();
  request.window_tokens = 2500;
  request.settings.max_output_tokens = 100;
  for (int i = 0; i < 10; ++i) book_->scripts.push_back(Summary("- part"));
  CancelToken cancel;
  CancellingProvider provider(book_, cancel, 1);
  auto result = Run(request, provider, cancel);
  ExpectUnchanged(result, before, seq_before, CompactionOutcome::kCancelled);
  EXPECT_EQ(book_->requests.size(), 1u);
  EXPECT_GT(std::get<events::CompactionStarted>(Stored(seq_before)[0].payload).chunks, 1);
}

TEST_F(CompactorTest, SmallWindowSplitsIntoChronologicalRequestsThatEachFit) {
  for (int n = 1; n <= 8; ++n) AddTurn(n);
  CompactionRequest request = Request();
  request.window_tokens = 2500;
  request.settings.max_output_tokens = 100;
  for (int i = 0; i < 20; ++i) book_->scripts.push_back(Summary(absl::StrCat("- part ", i + 1)));
  const uint64_t seq_before = log_->last_seq();
  auto sub = log_->Subscribe(seq_before);
  auto result = Run(request);
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  const size_t n = book_->requests.size();
  ASSERT_GT(n, 1u);
  EXPECT_EQ(std::get<events::CompactionStarted>(Stored(seq_before)[0].payload).chunks,
            static_cast<int>(n));
  int last_turn_seen = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& r = book_->requests[i];
    EXPECT_TRUE(r.tools.empty());
    const int64_t size = context::EstimateRuntimeTokens(r.system_prompt, r.tools) +
                         context::EstimateItemsTokens(r.messages);
    EXPECT_LE(size + request.settings.max_output_tokens +
                  context::ChunkSafetyMarginTokens(*request.window_tokens),
              *request.window_tokens)
        << "request " << i;
    EXPECT_THAT(r.system_prompt, HasSubstr(absl::StrCat("part ", i + 1, " of ", n)));
    // Chronological: each request starts at or after where the last ended.
    const std::string& text = std::get<events::UserText>(r.messages[0]).text;
    int first_here = 0;
    for (int t = 1; t <= 6; ++t) {
      if (text.find(absl::StrCat("answer ", t, ":")) != std::string::npos && first_here == 0) {
        first_here = t;
      }
    }
    if (first_here > 0) {
      EXPECT_GE(first_here, last_turn_seen) << "request " << i;
      for (int t = 6; t >= 1; --t) {
        if (text.find(absl::StrCat("answer ", t, ":")) != std::string::npos) {
          last_turn_seen = t;
          break;
        }
      }
    }
  }
  EXPECT_EQ(last_turn_seen, 6);
  // The summary joins the parts in order.
  const std::string& summary = result.ended.summary;
  size_t at = 0;
  for (size_t i = 1; i <= n; ++i) {
    size_t next = summary.find(absl::StrCat("Part ", i, " of ", n, ":\n- part ", i), at);
    ASSERT_NE(next, std::string::npos) << i;
    at = next;
  }
  // One progress event per request, in order.
  std::vector<int> progress;
  while (true) {
    auto next = sub->TryNext();
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    if (auto* p = std::get_if<events::CompactionProgress>(&(*next)->payload)) {
      EXPECT_EQ(p->chunks, static_cast<int>(n));
      progress.push_back(p->chunk);
    }
  }
  ASSERT_EQ(progress.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(progress[i], static_cast<int>(i + 1));
}

TEST_F(CompactorTest, TheTaskIsKeptOnceAfterTwoCompactionsInARow) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  book_->scripts.push_back(Summary("- first summary"));
  ASSERT_EQ(Run(Request()).ended.outcome, CompactionOutcome::kAccepted);
  for (int n = 5; n <= 6; ++n) AddTurn(n);
  book_->scripts.push_back(Summary("- second summary"));
  auto second = Run(Request());
  ASSERT_EQ(second.ended.outcome, CompactionOutcome::kAccepted) << second.ended.message;

  const auto ctx = Context();
  int tasks = 0, summaries = 0;
  for (const auto& item : ctx) {
    if (const auto* t = std::get_if<events::UserText>(&item)) {
      tasks += t->text == "prompt 1 (the task)" ? 1 : 0;
      summaries += t->kind == events::UserTextKind::kSummary ? 1 : 0;
    }
  }
  EXPECT_EQ(tasks, 1);
  EXPECT_EQ(summaries, 1);
  EXPECT_EQ(std::get<events::UserText>(ctx[0]).text, "prompt 1 (the task)");
  EXPECT_THAT(std::get<events::UserText>(ctx[1]).text, HasSubstr("- second summary"));
  EXPECT_EQ(std::get<events::UserText>(ctx[2]).turn_id, "turn5");
  // The first summary was folded into the second request; the task was not.
  ASSERT_EQ(book_->requests.size(), 2u);
  const std::string& transcript = std::get<events::UserText>(book_->requests[1].messages[0]).text;
  EXPECT_THAT(transcript, HasSubstr("- first summary"));
  EXPECT_THAT(transcript, HasSubstr("prompt 3"));
  EXPECT_THAT(transcript, Not(HasSubstr("(the task)")));
  EXPECT_EQ(second.ended.first_summarized_seq, first_seq_["turn3"]);
  EXPECT_EQ(second.ended.last_summarized_seq, first_seq_["turn5"] - 1);
}

TEST_F(CompactorTest, ImagesAreDescribedNotSent) {
  const std::string png = "data:image/png;base64," + std::string(8000, 'Q');
  AddTurn(1, "Image: " + png);
  AddTurn(2, png);
  AddTurn(3);
  AddTurn(4);
  book_->scripts.push_back(Summary("- looked at notes.png"));
  auto result = Run(Request());
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  ASSERT_EQ(book_->requests.size(), 1u);
  const std::string& transcript = std::get<events::UserText>(book_->requests[0].messages[0]).text;
  EXPECT_THAT(transcript, Not(HasSubstr("QQQQ")));
  EXPECT_THAT(transcript, Not(HasSubstr("base64")));
  EXPECT_THAT(transcript, HasSubstr("Image: [image image/png, 5.9 KB, path notes.png; data left out]"));
}

TEST_F(CompactorTest, AutomaticCompactionKeepsTheRunningTurn) {
  for (int n = 1; n <= 4; ++n) AddTurn(n);
  const auto before = Context();
  CompactionRequest request = Request();
  request.trigger = events::CompactionTrigger::kAutomatic;
  request.last_turn_running = true;
  request.turn_id = "turn4";
  request.fit_tokens = 100000;  // the older turns alone suffice: turn 4 stays whole
  book_->scripts.push_back(Summary("- s"));
  auto result = Run(request);
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted);
  EXPECT_EQ(result.ended.trigger, events::CompactionTrigger::kAutomatic);
  // Turns 2 and 3 are the complete turns kept; turn 4 runs.
  EXPECT_EQ(std::vector<events::ContextItem>(result.context->begin() + 2, result.context->end()),
            std::vector<events::ContextItem>(before.begin() + 4, before.end()));
  EXPECT_EQ(result.ended.last_summarized_seq, first_seq_["turn2"] - 1);
}

// A running turn that has grown past the trigger by itself: its earlier
// steps are summarized too (and the complete turns before them), keeping
// the task, its prompt and its last step, rather than ending the turn.
TEST_F(CompactorTest, AutomaticCompactionSummarizesARunningTurnTooLargeByItself) {
  for (int n = 1; n <= 2; ++n) AddTurn(n);
  AddRunningTurn(3, 4);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  CompactionRequest request = Request();
  request.trigger = events::CompactionTrigger::kAutomatic;
  request.last_turn_running = true;
  request.turn_id = "turn3";
  // Summarizing turn 1 (turn 2 is kept) would leave turn 3's four results
  // (about 4,000 tokens); its last one alone fits.
  request.settings.keep_recent_turns = 1;
  request.fit_tokens = 2500;
  book_->scripts.push_back(Summary("- read big.log three times\n- the log is all l"));
  auto result = Run(request);
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted) << result.ended.message;
  EXPECT_THAT(result.ended.message, HasSubstr("the running turn's earlier steps"));
  ASSERT_TRUE(result.context.has_value());
  ASSERT_EQ(result.context->size(), 5u);
  EXPECT_EQ((*result.context)[0], before[0]);  // the task
  EXPECT_EQ((*result.context)[1], before[8]);  // turn 3's prompt
  EXPECT_TRUE(std::holds_alternative<events::UserText>((*result.context)[2]));
  EXPECT_EQ((*result.context)[3], before[before.size() - 2]);  // its last call
  EXPECT_EQ((*result.context)[4], before.back());              // and its result
  EXPECT_EQ(Context(), *result.context);
  EXPECT_LE(result.ended.tokens_after, 2500);
  EXPECT_EQ(result.ended.first_summarized_seq, first_seq_["turn1"]);
  EXPECT_EQ(result.ended.last_summarized_seq, seq_before);
  // The summarizer saw turn 3's prompt and its first three steps.
  ASSERT_EQ(book_->requests.size(), 1u);
  const std::string transcript =
      std::get<events::UserText>(book_->requests[0].messages.back()).text;
  EXPECT_THAT(transcript, HasSubstr("prompt 3"));
  EXPECT_THAT(transcript, HasSubstr("s3"));
  EXPECT_THAT(transcript, Not(HasSubstr("s4")));
}

TEST_F(CompactorTest, KeepingNoTurnSummarizesUpToTheLastEvent) {
  for (int n = 1; n <= 2; ++n) AddTurn(n);
  const uint64_t seq_before = log_->last_seq();
  CompactionRequest request = Request();
  request.settings.keep_recent_turns = 0;
  book_->scripts.push_back(Summary("- s"));
  auto result = Run(request);
  ASSERT_EQ(result.ended.outcome, CompactionOutcome::kAccepted);
  EXPECT_EQ(result.context->size(), 2u);
  EXPECT_EQ(result.ended.first_summarized_seq, first_seq_["turn1"]);
  EXPECT_EQ(result.ended.last_summarized_seq, seq_before);
}

TEST_F(CompactorTest, NothingToCompactCommitsOnlyTheEnd) {
  for (int n = 1; n <= 2; ++n) AddTurn(n);
  const auto before = Context();
  const uint64_t seq_before = log_->last_seq();
  auto result = Run(Request());
  EXPECT_EQ(result.ended.outcome, CompactionOutcome::kNothingToCompact);
  EXPECT_THAT(result.ended.message, HasSubstr("Nothing to compact"));
  EXPECT_FALSE(result.context.has_value());
  EXPECT_TRUE(book_->requests.empty());
  EXPECT_EQ(Context(), before);
  EXPECT_THAT(StoredKinds(seq_before), ElementsAre("compaction_ended"));
}

}  // namespace
}  // namespace raw::loop
