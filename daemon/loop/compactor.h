// Compactor: one compaction of a session's model context, from the plan to
// the committed result.
//
// RunCompaction plans (context/compaction_plan.h), records
// CompactionStarted, asks `summarizer` for one summary per chunk (publishing
// a live CompactionProgress before each), checks the summaries, and records
// CompactionEnded. Only an accepted compaction changes the model context,
// and it does so in the same commit as its CompactionEnded
// (CommitExtras::replace_context, together with the new context's
// ContextMeter state and the session's compaction count), so the store
// never holds a partial context. A failed, cancelled or rejected compaction
// leaves the context as it was.
//
// Thread-safety: RunCompaction blocks on the summarizer. The caller runs it
// on the thread of the operation that owns the session's context (a turn,
// for automatic compaction, or a manual compaction), with nothing else
// changing the context meanwhile. It reads `context` and never modifies it;
// the caller adopts CompactionResult::context.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "daemon/config/config.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/session_log.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/reasoning_rule.h"

namespace raw::loop {

struct CompactionRequest {
  events::CompactionTrigger trigger = events::CompactionTrigger::kManual;
  config::CompactSettings settings;
  // The output cap the summarizer's requests carry
  // (context::SummaryOutputCap): settings.max_output_tokens, or more on a
  // model whose reasoning counts against it. Chunks leave room for it in
  // the window; when it is larger, the visible summary is still held to
  // settings.max_output_tokens. 0: settings.max_output_tokens.
  int64_t summary_output_cap = 0;
  std::optional<int64_t> window_tokens;
  int64_t runtime_tokens = 0;  // EstimateRuntimeTokens of the agent's prompt + tools
  // Which reasoning the model's requests send back: what the estimates
  // before and after count (context/token_estimate.h).
  providers::ReasoningRule reasoning;
  // Automatic compaction: the most the compacted context may come to
  // (compact.trigger_tokens, on the estimate's scale); a summary that does
  // not get it there is rejected. Unset for a manual compaction.
  std::optional<int64_t> fit_tokens;
  // The meter's calibration ratio in thousandths
  // (ContextMeter::scale_permille): the estimates before and after, and
  // what they are compared with, are scaled by it, so that a model that
  // counts more than Raw's estimate is compacted enough for its own count.
  int64_t scale_permille = 1000;
  std::string turn_id;         // turn id the events carry
  // Automatic compaction inside a running turn. With fit_tokens, when
  // summarizing the older turns cannot get the context under it (or there
  // are none), the running turn's earlier steps are summarized too
  // (context::PlanCompaction's running_steps_too).
  bool last_turn_running = false;
  // Called once, right before the final CompactionEnded is recorded or
  // published (whatever the outcome), on the compacting thread. The session
  // runner uses it to know that clients may see the end from now on.
  std::function<void()> before_end = nullptr;
};

struct CompactionResult {
  events::CompactionEnded ended;  // as committed
  // The new model context, set only when the compaction was accepted and
  // committed; the caller replaces its context with it and resets its
  // ContextMeter (Reset(runtime_tokens, *context)).
  std::optional<std::vector<events::ContextItem>> context;
  // One entry per summary request sent (each attempt of a retried one
  // too), in order, whatever the outcome: its usage, or nullopt when it
  // reported none. Already committed to the
  // session's totals (see RunCompaction).
  std::vector<std::optional<events::Usage>> usage;
  // Non-zero when the store refused the end of a compaction whose start it
  // had stored: `ended` (a failure, the context unchanged) was published
  // unstored under this seq (SessionLog::PublishUnstored), and the caller
  // must have it stored (SessionLog::CommitPublished) before anything else
  // of the session, so that the stored history never holds a compaction
  // that started and did not end.
  uint64_t unstored_end_seq = 0;
  // The store's refusal, with unstored_end_seq.
  absl::Status unstored_end_cause;
};

// Runs one compaction of `context` (see the file comment). `summarizer` is
// the agent's model, already configured with request.summary_output_cap as
// its output cap (context::SummaryModel); it receives SummaryRequest()s only (no tools). `cancel`
// is checked between chunks and passed to each request.
// `first_seq_of_turn` maps a display-history turn id to the seq of its first
// stored event (0 when unknown); it fills the summarized seq range of an
// accepted CompactionEnded: first = first_seq_of_turn(first summarized
// turn) or 1 when unknown; last = first_seq_of_turn(first kept turn) - 1,
// or log.last_seq() when nothing is kept, or 0 when the kept turn is
// unknown.
//
// CompactionStarted and CompactionEnded carry tokens_before, the whole
// estimate of `context` under runtime_tokens (not the meter's value, which
// may rest on a provider's count); an accepted CompactionEnded carries
// tokens_after, the same estimate of the new context. Each summary request
// counts in the session's totals as a turn's request does (its usage, or
// only the request when it reported none), committed as soon as it
// returns, before the compaction's end.
//
// Outcomes: kNothingToCompact (only CompactionEnded is committed),
// kAccepted, kRejected (empty, cut at the output cap, longer than
// settings.max_output_tokens when the cap had room for reasoning (the
// visible output: the reported output less the reported reasoning, else the
// estimate of the text), not shorter than
// what it replaces, a new context not smaller than the old one, or one
// above request.fit_tokens),
// kFailed (a summary request failed; or the store refused a commit, in which
// case the CompactionEnded is published unstored), kCancelled. Never throws.
CompactionResult RunCompaction(
    const CompactionRequest& request, const std::vector<events::ContextItem>& context,
    providers::Provider& summarizer, SessionLog& log, const CancelToken& cancel,
    const std::function<uint64_t(const std::string& turn_id)>& first_seq_of_turn);

}  // namespace raw::loop
