#include "daemon/loop/compactor.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/failpoint.h"
#include "common/logging.h"
#include "daemon/context/compaction_plan.h"
#include "daemon/context/context_meter.h"
#include "daemon/context/token_estimate.h"

namespace raw::loop {
namespace {

using events::CompactionOutcome;

// Collects one summary response: its text and how it ended. Reasoning and
// tool calls are ignored; a retry discards what the failed attempt sent,
// after passing its usage (nullopt when it reported none) to `on_retried`:
// the attempt was a request of its own.
class SummarySink : public providers::ProviderEventSink {
 public:
  explicit SummarySink(std::function<void(const std::optional<events::Usage>&)> on_retried)
      : on_retried_(std::move(on_retried)) {}

  void OnEvent(const providers::ProviderEvent& event) override {
    if (const auto* delta = std::get_if<providers::TextDeltaEvent>(&event)) {
      text_ += delta->text;
    } else if (const auto* finish = std::get_if<providers::FinishEvent>(&event)) {
      finish_ = finish->reason;
    } else if (const auto* usage = std::get_if<providers::UsageEvent>(&event)) {
      usage_ = usage->usage;
    } else if (const auto* error = std::get_if<providers::ErrorEvent>(&event)) {
      error_ = *error;
    } else if (std::holds_alternative<providers::RetryEvent>(event)) {
      on_retried_(usage_);
      text_.clear();
      finish_.reset();
      usage_.reset();
    }
  }
  const std::string& text() const { return text_; }
  const std::optional<providers::FinishReason>& finish() const { return finish_; }
  const std::optional<providers::ErrorEvent>& error() const { return error_; }
  // Unset when the provider reported no usage for the request, which then
  // counts in no total (as for a turn's request).
  const std::optional<events::Usage>& usage() const { return usage_; }

 private:
  std::function<void(const std::optional<events::Usage>&)> on_retried_;
  std::string text_;
  std::optional<providers::FinishReason> finish_;
  std::optional<providers::ErrorEvent> error_;
  std::optional<events::Usage> usage_;
};

std::string NotRecorded(const absl::Status& status) {
  return absl::StrCat("The compaction could not be recorded (", status.message(),
                      "); the context is unchanged.");
}

// Why a summary request failed: the provider's message when it sent one.
std::string FailureReason(const absl::Status& status, const SummarySink& sink) {
  if (sink.error() && !sink.error()->message.empty()) return sink.error()->message;
  if (!status.ok()) return std::string(status.message());
  return "the response ended without finishing";
}

// Commits `ended` (with `extras`); when the store refuses, publishes it
// unstored as a failure so clients still learn the compaction ended, and
// returns the seq it was published under (0 when it was stored), with the
// store's refusal in `refused`.
uint64_t Record(SessionLog& log, const std::string& turn_id, events::CompactionEnded& ended,
                absl::Status& refused, CommitExtras extras = {}) {
  absl::Status status = log.Commit(turn_id, {ended}, std::move(extras));
  if (status.ok()) return 0;
  refused = status;
  ended.outcome = CompactionOutcome::kFailed;
  ended.message = NotRecorded(status);
  ended.tokens_after = ended.tokens_before;
  ended.first_summarized_seq = 0;
  ended.last_summarized_seq = 0;
  ended.summary.clear();
  return log.PublishUnstored(turn_id, ended);
}

// Counts one summary request in the session's totals, as a turn's request
// counts: its usage when it reported one (a UsageReport event), else only
// the request. Committed as soon as the request returns, before the
// compaction's end, so that no later crash can leave the request uncounted.
void CommitUsage(SessionLog& log, const std::string& turn_id,
                 const std::optional<events::Usage>& usage) {
  CommitExtras extras;
  extras.usage = usage.value_or(events::Usage{});
  std::vector<events::EventPayload> payloads;
  if (usage) payloads.push_back(events::UsageReport{*usage, 0});
  if (absl::Status s = log.Commit(turn_id, std::move(payloads), std::move(extras)); !s.ok()) {
    RAW_LOG(Warning) << "session " << log.session_id()
                     << ": could not store the usage of a summary request: " << s.message();
  }
}

// Whether compacting by `plan` can bring a context of `tokens_before` under
// `fit_tokens`: what it replaces less the longest summaries it may get back
// (a bound: the summaries are usually shorter).
bool MayFit(const context::CompactionPlan& plan, int64_t tokens_before,
            const config::CompactSettings& settings, int64_t fit_tokens, int64_t scale_permille) {
  if (plan.chunks.empty()) return false;
  const int64_t summaries =
      static_cast<int64_t>(plan.chunks.size()) * std::max<int64_t>(0, settings.max_output_tokens);
  return tokens_before - context::ScaleEstimate(plan.replaced_tokens, scale_permille) + summaries <=
         fit_tokens;
}

}  // namespace

CompactionResult RunCompaction(
    const CompactionRequest& request, const std::vector<events::ContextItem>& context,
    providers::Provider& summarizer, SessionLog& log, const CancelToken& cancel,
    const std::function<uint64_t(const std::string& turn_id)>& first_seq_of_turn) {
  CompactionResult result;
  events::CompactionEnded& ended = result.ended;
  ended.trigger = request.trigger;
  // Before and after are both whole estimates of the same kind, so that
  // they compare (a provider's count, the meter's baseline, is not one),
  // both brought to the provider's scale by the meter's calibration ratio.
  const int64_t tokens_before = context::ScaleEstimate(
      request.runtime_tokens + context::EstimateItemsTokens(context, request.reasoning),
      request.scale_permille);
  ended.tokens_before = tokens_before;
  ended.tokens_after = tokens_before;
  const std::string& turn_id = request.turn_id;
  bool started_stored = false;
  auto unchanged = [&](CompactionOutcome outcome, std::string message) {
    ended.outcome = outcome;
    ended.message = std::move(message);
    if (request.before_end) request.before_end();
    absl::Status refused;
    const uint64_t unstored = Record(log, turn_id, ended, refused);
    // Before the start is stored there is nothing to close in the store.
    if (started_stored && unstored != 0) {
      result.unstored_end_seq = unstored;
      result.unstored_end_cause = refused;
    }
    return result;
  };
  // Before anything of this compaction is recorded: the display history the
  // summary covers when nothing is kept.
  const uint64_t seq_before = log.last_seq();

  // Chunks leave room in the window for the whole cap each request carries.
  config::CompactSettings chunking = request.settings;
  chunking.max_output_tokens =
      std::max(request.settings.max_output_tokens, request.summary_output_cap);
  // Chunks are cut by the estimate: on its scale, a window the model
  // counts in more tokens than Raw estimates is that much smaller.
  std::optional<int64_t> window = request.window_tokens;
  if (window && request.scale_permille > 1000) {
    *window = *window * 1000 / request.scale_permille;
  }
  context::CompactionPlan plan =
      context::PlanCompaction(context, chunking, window, request.last_turn_running,
                              /*running_steps_too=*/false, request.reasoning);
  if (request.last_turn_running && request.fit_tokens &&
      !MayFit(plan, tokens_before, request.settings, *request.fit_tokens, request.scale_permille)) {
    // The running turn is what has grown: its earlier steps are summarized
    // too, rather than ending the turn.
    context::CompactionPlan deeper = context::PlanCompaction(
        context, chunking, window,
        /*last_turn_running=*/true, /*running_steps_too=*/true, request.reasoning);
    if (deeper.summarizes_running_steps) plan = std::move(deeper);
  }
  if (plan.chunks.empty()) {
    return unchanged(CompactionOutcome::kNothingToCompact,
                     absl::StrCat("Nothing to compact: the context holds only the original "
                                  "task, earlier summaries and the recent turns kept as they "
                                  "are (compact.keep_recent_turns = ",
                                  request.settings.keep_recent_turns, ")."));
  }
  const int chunks = static_cast<int>(plan.chunks.size());
  absl::Status started =
      log.Commit(turn_id, {events::CompactionStarted{request.trigger, tokens_before, chunks}});
  if (!started.ok()) {
    ended.outcome = CompactionOutcome::kFailed;
    ended.message = NotRecorded(started);
    if (request.before_end) request.before_end();
    log.PublishUnstored(turn_id, ended);
    return result;
  }
  started_stored = true;

  const std::string kCancelled = "Compaction was cancelled; the context is unchanged.";
  std::vector<std::string> summaries;
  for (int i = 0; i < chunks; ++i) {
    if (cancel.cancelled()) return unchanged(CompactionOutcome::kCancelled, kCancelled);
    log.PublishLive(turn_id, events::CompactionProgress{i + 1, chunks});
    const providers::ModelRequest summary_request =
        context::SummaryRequest(context::RenderTranscript(plan.chunks[static_cast<size_t>(i)]),
                                i + 1, chunks);
    auto count = [&](const std::optional<events::Usage>& usage) {
      result.usage.push_back(usage);
      CommitUsage(log, turn_id, usage);
    };
    SummarySink sink(count);
    absl::Status status = summarizer.Stream(summary_request, sink, cancel);
    RAW_FAILPOINT("compaction.summarized");
    count(sink.usage());
    const bool cancelled = cancel.cancelled() || status.code() == absl::StatusCode::kCancelled ||
                           (sink.error() && sink.error()->kind == providers::ErrorKind::kCancelled);
    if (cancelled) return unchanged(CompactionOutcome::kCancelled, kCancelled);
    if (!status.ok() || sink.error() || !sink.finish()) {
      return unchanged(CompactionOutcome::kFailed,
                       absl::StrCat("The summary request failed: ", FailureReason(status, sink),
                                    ". The context is unchanged."));
    }
    // Whether the context shrinks is judged on the whole summary below.
    context::SummaryVerdict verdict = context::CheckSummary(
        sink.text(), *sink.finish(), std::numeric_limits<int64_t>::max());
    if (verdict.accepted && request.summary_output_cap > request.settings.max_output_tokens) {
      // The provider's cap had room for reasoning, so it no longer bounds
      // the summary itself.
      verdict = context::CheckSummaryLength(sink.text(), sink.usage(),
                                            request.settings.max_output_tokens);
    }
    if (!verdict.accepted) {
      std::string part = chunks > 1 ? absl::StrCat(" (part ", i + 1, " of ", chunks, ")") : "";
      return unchanged(CompactionOutcome::kRejected,
                       absl::StrCat("The summary was rejected", part, ": ", verdict.reason,
                                    ". The context is unchanged."));
    }
    summaries.push_back(sink.text());
  }
  if (cancel.cancelled()) return unchanged(CompactionOutcome::kCancelled, kCancelled);

  std::string summary = context::JoinChunkSummaries(summaries);
  context::SummaryVerdict verdict =
      context::CheckSummary(summary, providers::FinishReason::kStop, plan.replaced_tokens);
  if (!verdict.accepted) {
    return unchanged(CompactionOutcome::kRejected,
                     absl::StrCat("The summary was rejected: ", verdict.reason,
                                  ". The context is unchanged."));
  }

  std::vector<events::ContextItem> compacted = context::AssembleCompacted(plan, summary);
  // The context keeps the items as they are stored (SessionLog::RedactItem):
  // the summary may repeat a secret the model saw.
  for (events::ContextItem& item : compacted) log.RedactItem(item);
  const int64_t tokens_after = context::ScaleEstimate(
      request.runtime_tokens + context::EstimateItemsTokens(compacted, request.reasoning),
      request.scale_permille);
  if (tokens_after >= tokens_before) {
    return unchanged(CompactionOutcome::kRejected,
                     absl::StrCat("The summary was rejected: the compacted context (~",
                                  tokens_after, " tokens estimated) is not smaller than before (~",
                                  tokens_before, "). The context is unchanged."));
  }
  if (request.fit_tokens && tokens_after > *request.fit_tokens) {
    // A lossy rewrite that still cannot let the request through is not
    // worth making.
    return unchanged(
        CompactionOutcome::kRejected,
        absl::StrCat("The summary was rejected: the compacted context (~", tokens_after,
                     " tokens estimated) would still exceed compact.trigger_tokens (",
                     *request.fit_tokens, "). The context is unchanged."));
  }
  auto seq_of = [&](const std::string& id) -> uint64_t {
    return id.empty() || !first_seq_of_turn ? 0 : first_seq_of_turn(id);
  };
  const uint64_t first = seq_of(plan.first_summarized_turn_id);
  ended.first_summarized_seq = first > 0 ? first : 1;
  if (plan.kept.empty() || plan.summarizes_running_steps) {
    // (The running turn's last step is kept, but the display history has
    // no boundary for it: the range ends with what was there before.)
    ended.last_summarized_seq = seq_before;
  } else {
    const uint64_t kept = seq_of(plan.first_kept_turn_id);
    ended.last_summarized_seq = kept > 0 ? kept - 1 : 0;
  }
  ended.outcome = CompactionOutcome::kAccepted;
  ended.tokens_after = tokens_after;
  ended.summary = std::move(summary);
  ended.message = absl::StrCat(
      plan.summarizes_running_steps ? "Older turns and the running turn's earlier steps were "
                                      "replaced by a summary: ~"
                                    : "Older turns were replaced by a summary: ~",
      ended.tokens_before, " tokens before, ~", ended.tokens_after, " after.");
  // The new context's estimate state goes with it, so a restart finds the
  // two consistent.
  context::ContextMeter meter;
  meter.SetReasoningRule(request.reasoning, {});
  meter.set_scale_permille(request.scale_permille);
  meter.Reset(request.runtime_tokens, compacted);
  CommitExtras extras;
  extras.replace_context = compacted;
  extras.context_meter = meter.Serialize();
  extras.compaction_accepted = true;
  extras.conversation_activity = false;
  if (request.before_end) request.before_end();
  result.unstored_end_seq =
      Record(log, turn_id, ended, result.unstored_end_cause, std::move(extras));
  if (result.unstored_end_seq == 0) result.context = std::move(compacted);
  return result;
}

}  // namespace raw::loop
