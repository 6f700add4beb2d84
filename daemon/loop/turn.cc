#include "daemon/loop/turn.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/hooks/hook_fields.h"
#include "daemon/loop/compaction_step.h"
#include "daemon/loop/runtime_record.h"
#include "daemon/loop/tool_batch.h"
#include "daemon/loop/unanswered_calls.h"

namespace raw::loop {
namespace {

std::string Title(const std::string& text) {
  std::string t = text.substr(0, text.find('\n'));
  if (t.size() > 80) {
    size_t cut = 77;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
    t = t.substr(0, cut) + "...";
  }
  return t;
}

std::string ProviderErrorMessage(const StepResult& result, const absl::Status& status) {
  if (result.error && !result.error->message.empty()) {
    std::string kind = providers::ErrorKindName(result.error->kind);
    return absl::StrCat("model request failed (", kind, "): ", result.error->message);
  }
  return absl::StrCat("model request failed: ", status.message());
}

}  // namespace

Turn::Turn(TurnPlan plan, SessionLog& log, SessionContext& context, const CancelToken& cancel)
    : plan_(std::move(plan)),
      log_(log),
      ctx_(context),
      context_(context.items),
      cancel_(cancel),
      hooks_(plan_.hooks, plan_.session_id, plan_.cwd, plan_.withheld_env, plan_.turn_id, log,
             cancel, plan_.end_reports ? plan_.end_reports.get() : &never_cancelled_) {}

events::TurnEnded Turn::End(events::TurnEndReason reason, std::string message) {
  events::TurnEnded end;
  end.reason = reason;
  end.message = std::move(message);
  end.steps = steps_;
  return end;
}

std::string Turn::ToolFor(const std::string& model_name) const {
  auto it = plan_.tools.find(model_name);
  return it == plan_.tools.end() ? "" : it->second->qualified_name;
}

absl::Status Turn::Notice(events::NoticeLevel level, std::string text) {
  absl::Status s = log_.Commit(plan_.turn_id, {events::Notice{level, text}});
  // Warnings about the answer reach notification hooks (never the hooks'
  // own warnings, which would loop).
  if (level != events::NoticeLevel::kInfo) {
    hooks_.Fire(config::HookEvent::kNotification, "",
                [&] { return hooks::NotificationFields(level, text); });
  }
  return s;
}

events::TurnEnded Turn::Run() {
  turn_start_ns_ = SteadyNowNs();
  timings_.reserve(static_cast<size_t>(std::max(plan_.agent.agent.max_steps, 1)));
  hooks_.set_timeline(&timeline_);
  // The first step also owns the time the start waited for the warm-up,
  // which did that step's serialization.
  timeline_.Begin(turn_start_ns_ - plan_.start_waited_ns);
  events::TurnEnded end = RunTurn();
  if (plan_.session && !timings_.empty()) plan_.session->RecordTurnTimings(std::move(timings_));
  hooks_.set_timeline(nullptr);
  return end;
}

void Turn::ReportEnd(const events::TurnEnded& end, bool end_stored) {
  // A warning stored after an end the store refused would come before it.
  if (!end_stored) hooks_.StoreNoWarnings();
  const bool answered = end.reason == events::TurnEndReason::kCompleted && !final_text_.empty();
  hooks_.Report(config::HookEvent::kTurnEnd, "", [&] {
    return hooks::TurnEndFields(end.reason, answered ? final_text_ : end.message);
  });
}

std::string Turn::CancelledWhy() const {
  // The interrupt's own words ("interrupted"), or the daemon's shutdown.
  std::string why = cancel_.reason();
  return why.empty() ? "interrupted" : why;
}

std::string Turn::SkillChangeNotices() {
  if (!plan_.session) return "";
  std::string notices;
  for (const auto& [name, hash] : plan_.session->loaded_skills()) {
    absl::StatusOr<skills::Skill> now = plan_.skills.Reload(name);
    if (!now.ok() || now->text_hash == hash) continue;
    absl::StrAppend(&notices, "\n\n[Raw notice] The skill \"", name,
                    "\" has changed since you loaded it. Load it again with load_skill before "
                    "relying on it.");
    // Ask once per change: the next notice comes only if it changes again.
    plan_.session->SetLoadedSkill(name, now->text_hash);
  }
  return notices;
}

std::optional<std::string> Turn::UserContextText(std::string* blocked) {
  hooks::HookOutcome submit = hooks_.Fire(config::HookEvent::kUserPromptSubmit, "", [&] {
    return hooks::UserPromptSubmitFields(plan_.user_text);
  });
  if (submit.decision == hooks::HookDecision::kDeny) {
    *blocked = submit.reason;
    return std::nullopt;
  }
  std::string text = plan_.user_text;
  if (!submit.additional_context.empty()) {
    // A hook's output is outside text: known secrets are kept out of it.
    absl::StrAppend(&text, "\n\n[Context added by a hook]\n",
                    log_.Redact(submit.additional_context));
  }
  absl::StrAppend(&text, SkillChangeNotices(), ToolTurnContexts());
  return text;
}

std::string Turn::ToolTurnContexts() {
  std::string out;
  for (const auto& [name, spec] : plan_.tools) {
    if (!spec->turn_context) continue;
    const std::string& model_name = name;  // lambdas cannot capture a binding
    // The store first: a session that never used the tool costs one indexed
    // read, not a walk over its whole context.
    absl::StatusOr<std::vector<std::string>> prior =
        log_.store().ReadToolMeta(log_.session_id(), spec->qualified_name);
    if (!prior.ok()) {
      // The turn has not started yet; its context simply goes without.
      RAW_LOG(Warning) << "session " << plan_.session_id << ": the earlier results of "
                       << model_name << " could not be read: " << prior.status();
      continue;
    }
    if (prior->empty()) continue;
    const auto shows_tool = [&](const events::ContextItem& item) {
      const auto* outcome = std::get_if<events::ToolOutcome>(&item);
      return outcome != nullptr && outcome->name == model_name;
    };
    if (std::any_of(context_.rbegin(), context_.rend(), shows_tool)) continue;
    std::string text = spec->turn_context(*prior);
    if (text.empty()) continue;
    const auto holds_text = [&](const events::ContextItem& item) {
      const auto* user = std::get_if<events::UserText>(&item);
      return user != nullptr && absl::StrContains(user->text, text);
    };
    if (std::any_of(context_.rbegin(), context_.rend(), holds_text)) continue;
    absl::StrAppend(&out, "\n\n", text);
  }
  return out;
}

void Turn::NoticeToolChanges() {
  if (!plan_.session) return;
  RuntimeRecord before =
      plan_.session->SwapTools(plan_.tools_hash, plan_.tool_names, plan_.packages);
  std::vector<events::EventPayload> notices;
  for (std::string notice : {PackageChangeNotice(before, plan_.packages),
                             ToolChangeNotice(before, plan_.tools_hash, plan_.tool_names)}) {
    if (!notice.empty()) {
      notices.push_back(events::Notice{events::NoticeLevel::kInfo, std::move(notice)});
    }
  }
  if (notices.empty()) return;
  (void)log_.Commit(plan_.turn_id, std::move(notices));
}

std::optional<events::TurnEnded> Turn::BeforeRequest() {
  ctx_.SyncMeter();
  const std::optional<int64_t> trigger = plan_.agent.agent.compact.trigger_tokens;
  // Over the trigger by the meter, or by the provider's last refusal.
  auto over_trigger = [&] { return ctx_.meter.tokens() > *trigger || ctx_.refused_as_too_large; };
  if (!trigger || !over_trigger()) {
    PublishEstimate(plan_, ctx_, log_);
    return std::nullopt;
  }
  std::string why = "automatic compaction already ran in this turn";
  if (!compacted_) {
    compacted_ = true;
    CompactionResult compaction;
    {
      // The summary request is the model's time.
      StepTimeline::Outside outside(&timeline_);
      compaction = CompactSession(events::CompactionTrigger::kAutomatic,
                                  /*last_turn_running=*/true, plan_, ctx_, log_, hooks_, cancel_);
    }
    const events::CompactionEnded& ended = compaction.ended;
    if (compaction.unstored_end_seq != 0) {
      // Nothing more of the turn is stored after a compaction that has no
      // end in the store: one more try, else the turn ends here and its
      // compaction's end is stored first (owed_compaction_end()).
      absl::Status stored = log_.CommitPublished(compaction.unstored_end_seq, plan_.turn_id, ended);
      if (!stored.ok()) {
        owed_compaction_end_ = OwedEvent{compaction.unstored_end_seq, ended};
        hooks_.StoreNoWarnings();
        return End(events::TurnEndReason::kError,
                   absl::StrCat("the end of its automatic compaction could not be stored (",
                                stored.message(), ")"));
      }
    }
    if (cancel_.cancelled()) return End(events::TurnEndReason::kCancelled, CancelledWhy());
    if (!over_trigger()) return std::nullopt;
    if (ended.outcome != events::CompactionOutcome::kAccepted && ctx_.refused_as_too_large &&
        ctx_.meter.tokens() <= *trigger) {
      // The next turn sends again: a refusal taken for the context's size
      // that was something else must not keep the session from the model.
      ctx_.refused_as_too_large = false;
      return End(events::TurnEndReason::kError,
                 absl::StrCat("the model refused the last request as larger than its context, "
                              "and compaction could not make it smaller (",
                              ended.message,
                              "), so the next request was not sent; use /clear or start a new "
                              "session"));
    }
    why = ended.outcome == events::CompactionOutcome::kAccepted
              ? "even after compacting"
              : absl::StrCat("and compaction could not bring it under the trigger (", ended.message,
                             ")");
  } else {
    PublishEstimate(plan_, ctx_, log_);
  }
  return End(events::TurnEndReason::kError,
             absl::StrCat("the next model request (~", ctx_.meter.tokens(),
                          " tokens estimated) would exceed compact.trigger_tokens (", *trigger,
                          ") ", why, ", so it was not sent; use /clear, start a new session, or "
                          "raise the trigger"));
}

events::TurnEnded Turn::RunTurn() {
  const bool session_starts = plan_.session && plan_.session->MarkSessionStarted();
  // A hook is a program of the user's that may take its time (up to an
  // hour): when one runs before the prompt reaches the context, the prompt
  // is stored first, so that a daemon killed meanwhile leaves a turn for
  // its recovery to close (the prompt kept in the display history) rather
  // than none, and watchers see the prompt at once. Without such hooks, one
  // commit stores both.
  const bool hooks_first = (session_starts && hooks_.Has(config::HookEvent::kSessionStart)) ||
                           hooks_.Has(config::HookEvent::kUserPromptSubmit);
  // The images (up to 13 MiB of base64) are copied into the context item
  // and the store's append, and moved into the display event.
  std::vector<events::ImagePart> context_images = plan_.images;
  CommitExtras extras;
  extras.conversation_activity = true;
  extras.title = absl::StripAsciiWhitespace(plan_.user_text).empty() && !plan_.images.empty()
                     ? "(image)"
                     : Title(plan_.user_text);
  std::vector<events::EventPayload> started = {
      events::TurnStarted{plan_.user_text},
      events::UserMessage{plan_.user_text, std::move(plan_.images)}};
  if (hooks_first) {
    absl::Status s = log_.Commit(plan_.turn_id, std::move(started), std::exchange(extras, {}));
    if (!s.ok()) return End(events::TurnEndReason::kError, absl::StrCat("storage: ", s.message()));
    started.clear();
  }
  if (session_starts) {
    hooks_.Fire(config::HookEvent::kSessionStart, "", [] { return hooks::SessionStartFields(); });
  }
  std::string blocked;
  std::optional<std::string> user_item = UserContextText(&blocked);
  events::ContextItem prompt =
      events::UserText{user_item.value_or(""), events::UserTextKind::kPrompt, plan_.turn_id};
  std::get<events::UserText>(prompt).images = std::move(context_images);
  // Kept as stored, without known secrets (SessionLog::RedactItem).
  log_.RedactItem(prompt);
  if (user_item) extras.context_appends.push_back(prompt);
  // Calls an earlier turn left without a result (it could not store them)
  // are answered ahead of the prompt: the providers refuse a context that
  // holds a call without its result.
  std::function<void()> answer_open = AnswerOpenCalls(kNotRecordedResult, extras);
  if (!started.empty() || !extras.context_appends.empty() || extras.replace_context.has_value()) {
    absl::Status s = log_.Commit(plan_.turn_id, std::move(started), std::move(extras));
    if (!s.ok()) return End(events::TurnEndReason::kError, absl::StrCat("storage: ", s.message()));
  }
  if (answer_open) answer_open();
  // The context in memory holds what the store holds from here on, whatever
  // ends the turn next (an interrupt while MCP servers start, one that
  // cannot start): the next request sends the prompt, as a reloaded session
  // would.
  if (user_item) context_.push_back(std::move(prompt));
  // The next turn checks only what this one appends.
  ctx_.MarkCallsChecked();
  if (plan_.attach_mcp) {
    // Servers may start here; clients already see the turn running.
    absl::Status attached;
    {
      // Starting MCP servers is their time, not Raw's.
      StepTimeline::Outside outside(&timeline_);
      attached = plan_.attach_mcp(plan_, cancel_);
    }
    if (absl::IsCancelled(attached) || cancel_.cancelled()) {
      return End(events::TurnEndReason::kCancelled, CancelledWhy());
    }
    if (!attached.ok()) {
      return End(events::TurnEndReason::kError,
                 absl::StrCat("MCP tools could not be added: ", attached.message()));
    }
    ctx_.SetRuntime(plan_.runtime_tokens);
  }
  NoticeToolChanges();
  for (const std::string& notice : plan_.notices) {
    (void)Notice(events::NoticeLevel::kWarning, notice);
  }
  if (!user_item) {
    return End(events::TurnEndReason::kError,
               absl::StrCat("the prompt was blocked by a hook: ", blocked));
  }

  const int max_steps = plan_.agent.agent.max_steps;
  for (int step = 1; step <= max_steps; ++step) {
    if (cancel_.cancelled()) return End(events::TurnEndReason::kCancelled, CancelledWhy());
    events::TurnEnded end;
    if (RunStep(step, &end) == StepOutcome::kDone) return end;
  }
  // Only reached when the last permitted step ran tools; RunStep ends the
  // turn itself when that step asks for tools, so this is defensive.
  return End(events::TurnEndReason::kMaxSteps,
             absl::StrCat("reached the limit of ", max_steps, " model requests"));
}

Turn::StepOutcome Turn::RunStep(int step, events::TurnEnded* end) {
  steps_ = step;
  // The first step began with the turn; a later one begins now, right after
  // the previous step's results were committed.
  if (step > 1) timeline_.Begin(SteadyNowNs());
  if (std::optional<events::TurnEnded> refused = BeforeRequest()) {
    *end = *refused;
    return StepOutcome::kDone;
  }
  providers::ModelRequest request;
  request.system_prompt = plan_.agent.agent.system_prompt;
  request.tools = plan_.tool_definitions;
  // The request borrows the model context for the call rather than copying
  // it (a copy costs O(history) per step): only this turn touches the
  // context, and nothing reads it while the provider streams.
  request.messages = std::move(context_);
  request.times = &timeline_.request_times();
  request.history = &ctx_.serialized;
  request.history_generation = ctx_.generation;

  StepCollector collector(log_, plan_.turn_id, step);
  timeline_.Record(StepTimeline::kRequest);
  absl::Status status = plan_.provider->Stream(request, collector, cancel_);
  context_ = std::move(request.messages);
  timeline_.Record(StepTimeline::kResponseEnd);
  // The stream has ended: what the log held back of its text (a possible
  // start of a secret) is shown now.
  log_.FlushLive(plan_.turn_id);
  StepResult& result = collector.result();

  if (!status.ok() || !result.finish) {
    if (cancel_.cancelled() || status.code() == absl::StatusCode::kCancelled) {
      // Keep what the user already saw in the display history, marked as
      // interrupted; it is not a finished message, so the model context
      // does not get it. A partial tool call never runs.
      if (auto c = CommitInterrupted(step, result); !c.ok()) {
        *end = End(events::TurnEndReason::kError, absl::StrCat("storage: ", c.message()));
        return StepOutcome::kDone;
      }
      *end = End(events::TurnEndReason::kCancelled, CancelledWhy());
      return StepOutcome::kDone;
    }
    if (result.any_output) {
      log_.PublishLive(plan_.turn_id, events::StreamReset{"the model request failed"});
    }
    CountFailedRequest(result);
    if (result.error && result.error->kind == providers::ErrorKind::kContextOverflow) {
      ctx_.refused_as_too_large = true;
    }
    *end = End(events::TurnEndReason::kError, ProviderErrorMessage(result, status));
    return StepOutcome::kDone;
  }

  ctx_.refused_as_too_large = false;  // it took this one
  const auto reason = result.finish->reason;
  if (result.calls.empty()) {
    if (auto c = CommitAssistant(step, result); !c.ok()) {
      *end = End(events::TurnEndReason::kError, absl::StrCat("storage: ", c.message()));
      return StepOutcome::kDone;
    }
    timeline_.Record(StepTimeline::kCommitted);
    timings_.push_back(timeline_.Result());
    *end = End(events::TurnEndReason::kCompleted, "");
    if (reason == providers::FinishReason::kLength) {
      (void)Notice(events::NoticeLevel::kWarning,
                   "The answer was cut off at the model's output limit.");
      end->stop_reason = events::StopReason::kMaxTokens;
    } else if (reason == providers::FinishReason::kContentFilter) {
      (void)Notice(events::NoticeLevel::kWarning,
                   "The provider's content filter stopped the answer.");
      end->stop_reason = events::StopReason::kRefusal;
    }
    return StepOutcome::kDone;
  }

  const bool last_step = step >= plan_.agent.agent.max_steps;
  if (auto c = RunCalls(step, result, last_step); !c.ok()) {
    CloseFailedBatch();
    *end = End(events::TurnEndReason::kError, absl::StrCat("storage: ", c.message()));
    return StepOutcome::kDone;
  }
  timeline_.Record(StepTimeline::kResultsCommitted);
  timings_.push_back(timeline_.Result());
  if (cancel_.cancelled()) {
    *end = End(events::TurnEndReason::kCancelled, CancelledWhy());
    return StepOutcome::kDone;
  }
  if (last_step) {
    *end = End(events::TurnEndReason::kMaxSteps,
               absl::StrCat("reached the limit of ", plan_.agent.agent.max_steps,
                            " model requests; the last request asked for tools, which were "
                            "not run"));
    return StepOutcome::kDone;
  }
  return StepOutcome::kContinue;
}

absl::Status Turn::CommitAssistant(int step, const StepResult& result) {
  LeadingCommit commit = AssistantCommit(step, result);
  RETURN_IF_ERROR(log_.Commit(plan_.turn_id, std::move(commit.payloads), std::move(commit.extras)));
  commit.committed();
  final_text_ = result.text;
  return absl::OkStatus();
}

LeadingCommit Turn::AssistantCommit(int step, const StepResult& result) {
  std::vector<events::EventPayload> payloads;
  events::AssistantTurn item;
  item.text = result.text;
  item.reasoning = result.reasoning;
  item.opaque = result.opaque;
  // The model whose state this is (opaque_state.h).
  if (!item.opaque.empty()) item.model = plan_.agent.model.model_id;
  if (!result.text.empty() || !result.reasoning.empty() || result.calls.empty()) {
    payloads.push_back(events::AssistantMessage{result.text, result.reasoning, step});
  }
  if (!result.calls.empty()) {
    events::ToolCallBatch batch;
    for (const auto& c : result.calls) {
      batch.calls.push_back(
          {c.request.call_id, c.request.name, ToolFor(c.request.name), c.request.arguments});
      item.tool_calls.push_back(c.request);
    }
    payloads.push_back(std::move(batch));
  }
  // The context keeps the item as it is stored: with known secrets
  // removed (SessionLog::RedactItem).
  events::ContextItem stored = std::move(item);
  log_.RedactItem(stored);
  CommitExtras extras;
  AddRequestUsage(step, result, payloads, extras);
  extras.context_appends.push_back(stored);
  extras.conversation_activity = true;
  // The meter as it will be once the item is in, with the request's
  // reported usage as its new baseline; stored in the same transaction.
  ctx_.SyncMeter();
  context::ContextMeter meter = ctx_.meter;
  meter.Append(stored);
  if (result.usage) meter.RecordReported(*result.usage);
  extras.context_meter = meter.Serialize();
  // Once stored: the item joins the context the turn keeps, and the step's
  // commit phase ends.
  auto committed = [this, item = std::move(stored), meter = std::move(meter)]() mutable {
    context_.push_back(std::move(item));
    ctx_.meter = std::move(meter);
    PublishEstimate(plan_, ctx_, log_);
    timeline_.Record(StepTimeline::kCommitted);
  };
  return {std::move(payloads), std::move(extras), std::move(committed)};
}

absl::Status Turn::CommitInterrupted(int step, const StepResult& result) {
  std::vector<events::EventPayload> payloads;
  if (!result.text.empty() || !result.reasoning.empty()) {
    events::AssistantMessage message{result.text, result.reasoning, step};
    message.interrupted = true;
    payloads.push_back(std::move(message));
  }
  CommitExtras extras;
  AddRequestUsage(step, result, payloads, extras);
  // The context and its meter stay as they were: nothing of this request
  // enters the model context.
  return log_.Commit(plan_.turn_id, std::move(payloads), std::move(extras));
}

void Turn::CountFailedRequest(const StepResult& result) {
  std::vector<events::EventPayload> payloads;
  CommitExtras extras;
  AddRequestUsage(steps_, result, payloads, extras);
  if (absl::Status s = log_.Commit(plan_.turn_id, std::move(payloads), std::move(extras));
      !s.ok()) {
    RAW_LOG(Warning) << "session " << plan_.session_id
                     << ": could not count a failed request: " << s.message();
  }
}

absl::Status Turn::RunCalls(int step, const StepResult& result, bool skip_all) {
  ToolBatch batch(plan_, log_, context_, hooks_, cancel_, &timeline_);
  // The assistant's message and its calls are stored with the batch's
  // first commit (tool_batch.h).
  batch.Lead(AssistantCommit(step, result));
  if (skip_all) {
    return batch.Skip(result.calls,
                      absl::StrCat("Not run: the turn reached its limit of ",
                                   plan_.agent.agent.max_steps,
                                   " model requests (max_steps) before this call could run."));
  }
  return batch.Run(result.calls);
}

std::function<void()> Turn::AnswerOpenCalls(const std::string& why, CommitExtras& extras) {
  std::optional<AnsweredContext> answered = AnswerEveryCall(context_, why, ctx_.CallsCheckedUpTo());
  if (!answered) return nullptr;
  if (answered->first_inserted == context_.size()) {
    std::vector<events::ContextItem> outcomes(
        answered->items.begin() + static_cast<long>(answered->first_inserted),
        answered->items.end());
    extras.context_appends.insert(extras.context_appends.begin(), outcomes.begin(), outcomes.end());
    return [this, outcomes = std::move(outcomes)] {
      context_.insert(context_.end(), outcomes.begin(), outcomes.end());
    };
  }
  // An open batch before other items (a session stored before such calls
  // were answered): the context is stored again whole.
  extras.replace_context = answered->items;
  return [this, items = std::move(answered->items)]() mutable { ctx_.Rewrite(std::move(items)); };
}

void Turn::CloseFailedBatch() {
  CommitExtras extras;
  std::function<void()> apply = AnswerOpenCalls(kNotRecordedResult, extras);
  if (!apply) return;  // the calls never joined the context
  std::vector<events::EventPayload> results;
  for (const events::ContextItem& item : extras.context_appends) {
    const auto& outcome = std::get<events::ToolOutcome>(item);
    events::ToolResult result;
    result.call_id = outcome.call_id;
    result.name = outcome.name;
    result.tool = ToolFor(outcome.name);
    result.status = events::ToolStatus::kError;
    result.content = kNotRecordedResult;
    results.push_back(std::move(result));
  }
  if (absl::Status s = log_.Commit(plan_.turn_id, std::move(results), std::move(extras)); !s.ok()) {
    RAW_LOG(Warning) << "session " << plan_.session_id
                     << ": the calls of a failed batch stay without a result until the next "
                        "turn: "
                     << s.message();
    return;
  }
  apply();
}

}  // namespace raw::loop
