// CompactionPlan: which items of the model context compaction keeps, which
// it summarizes, and in how many summary requests.
//
// Segmenting: a turn is the run of items from one UserText of kind kPrompt
// to the next. The first kPrompt item of the context is the session's
// original task: it is kept verbatim exactly once, never summarized and
// never duplicated. kSummary items hold earlier summaries and are folded
// into the next summary. Items before the first prompt (there normally are
// none) count as the oldest part of the history.
//
// The transcript rendering (transcript.h) and the summary request and
// verdict (summary.h) that compaction uses are declared with it.
//
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/context/summary.h"
#include "daemon/context/transcript.h"
#include "daemon/events/conversation.h"
#include "daemon/providers/reasoning_rule.h"

namespace raw::context {

struct CompactionPlan {
  // The original task, when it is not already among `kept`.
  std::optional<events::UserText> task;
  // The running turn's prompt when its earlier steps are summarized and it
  // is not the task: kept word for word, ahead of the summary.
  std::optional<events::UserText> running_prompt;
  // True when the running turn's earlier steps are summarized too.
  bool summarizes_running_steps = false;
  // Chronological chunks of the items to summarize, one summary request
  // each; empty when there is nothing to compact. Items are prepared for the
  // summarizer: data payloads described (WithoutDataPayloads) and an item
  // too large for one request shortened (ShortenItem).
  std::vector<std::vector<events::ContextItem>> chunks;
  // The most recent complete turns (and the running turn), verbatim; with
  // summarizes_running_steps, the running turn's last step only.
  std::vector<events::ContextItem> kept;
  // Turn ids (display history) of the first turn whose items are summarized
  // and of the first kept prompt; empty when unknown or when there is none.
  std::string first_summarized_turn_id;
  std::string first_kept_turn_id;
  // EstimateItemTokens over every summarized item (under the plan's
  // reasoning rule): what the summary replaces.
  int64_t replaced_tokens = 0;
};

// Plans a compaction of `items`. Every turn but the last is complete; the
// last is complete unless `last_turn_running` (automatic compaction runs
// inside a turn, before a request; the running turn is always kept). Keeps
// the last settings.keep_recent_turns complete turns and the running turn,
// and summarizes everything older except the task. When only earlier
// summaries would be summarized, there is nothing to compact.
//
// With `running_steps_too` (a running turn grown too large by itself: the
// plan above would not bring the context under the trigger), the running
// turn's steps but its last one are summarized as well, and so every
// complete turn before them (the summary stays one chronological run):
// kept are the task, the running turn's prompt, and its last step (its last
// AssistantTurn and the items after it, the results of its calls, so that no
// call is parted from its result). The running turn's prompt goes to the
// summarizer for context, not counted in replaced_tokens. When the running
// turn has no step before its last, this is the plan above.
//
// With `window_tokens`, the summarized items are split into chronological
// chunks whose summary request (SummaryRequestOverheadTokens + the rendered
// chunk) plus settings.max_output_tokens plus ChunkSafetyMarginTokens fits
// the window; otherwise they form one chunk.
CompactionPlan PlanCompaction(const std::vector<events::ContextItem>& items,
                              const config::CompactSettings& settings,
                              std::optional<int64_t> window_tokens, bool last_turn_running,
                              bool running_steps_too = false,
                              const providers::ReasoningRule& reasoning = {});

// Room left free in each summary request because the estimate is not a
// tokenizer count: a tenth of the window, at least 64 tokens.
int64_t ChunkSafetyMarginTokens(int64_t window_tokens);

// The smallest transcript budget a chunk gets, even when the window leaves
// less (the request may then be refused by the provider).
inline constexpr int64_t kMinChunkTokens = 256;

// The compacted context: [task (if any), running prompt (if any),
// UserText{summary, kSummary}, kept...]. `summary` is the text
// JoinChunkSummaries made.
std::vector<events::ContextItem> AssembleCompacted(const CompactionPlan& plan,
                                                   const std::string& summary);

}  // namespace raw::context
