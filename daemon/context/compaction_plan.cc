#include "daemon/context/compaction_plan.h"

#include <algorithm>
#include <utility>

#include "daemon/context/token_estimate.h"

namespace raw::context {
namespace {

bool IsPrompt(const events::ContextItem& item) {
  const auto* text = std::get_if<events::UserText>(&item);
  return text != nullptr && text->kind == events::UserTextKind::kPrompt;
}

bool IsSummary(const events::ContextItem& item) {
  const auto* text = std::get_if<events::UserText>(&item);
  return text != nullptr && text->kind == events::UserTextKind::kSummary;
}

// The transcript tokens `item` adds to a chunk: its rendering and the blank
// line that separates it from the next (RenderTranscript).
int64_t RenderedTokens(const events::ContextItem& item) {
  return EstimateTextTokens(RenderItem(item)) + 1;
}

// `item` shortened until its rendering fits `budget_tokens` (as far as
// ShortenItem can cut it).
events::ContextItem FitItem(const events::ContextItem& item, int64_t budget_tokens) {
  events::ContextItem fitted = item;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int64_t over_tokens = RenderedTokens(fitted) - budget_tokens;
    if (over_tokens <= 0) break;
    const auto over_bytes = static_cast<size_t>(over_tokens * kBytesPerToken) + 64;
    const size_t text = TextBytes(fitted);
    fitted = ShortenItem(fitted, text > over_bytes ? text - over_bytes : 0);
  }
  return fitted;
}

// The summarizer never sees reasoning or provider state (RenderItem leaves
// them out); dropping them keeps the prepared copies small.
void DropUnrendered(events::ContextItem& item) {
  if (auto* turn = std::get_if<events::AssistantTurn>(&item)) {
    turn->reasoning.clear();
    turn->opaque.clear();
  }
}

}  // namespace

int64_t ChunkSafetyMarginTokens(int64_t window_tokens) {
  return std::max<int64_t>(64, window_tokens / 10);
}

CompactionPlan PlanCompaction(const std::vector<events::ContextItem>& items,
                              const config::CompactSettings& settings,
                              std::optional<int64_t> window_tokens, bool last_turn_running,
                              bool running_steps_too, const providers::ReasoningRule& reasoning) {
  CompactionPlan plan;
  std::vector<size_t> starts;  // index of each turn's prompt
  for (size_t i = 0; i < items.size(); ++i) {
    if (IsPrompt(items[i])) starts.push_back(i);
  }
  const size_t complete = starts.size() - (last_turn_running && !starts.empty() ? 1 : 0);
  const size_t keep =
      std::min(complete, static_cast<size_t>(std::max(0, settings.keep_recent_turns)));
  const size_t first_kept_turn = complete - keep;
  size_t kept_begin = first_kept_turn < starts.size() ? starts[first_kept_turn] : items.size();
  const size_t task_index = starts.empty() ? items.size() : starts[0];
  // The running turn's prompt, whose later steps are summarized (or none).
  size_t running_prompt = items.size();
  if (running_steps_too && last_turn_running && !starts.empty()) {
    // Its last step: the last AssistantTurn after its prompt. A step before
    // it, one AssistantTurn at least, must lie between them.
    const size_t prompt = starts.back();
    size_t last_step = items.size();
    for (size_t i = items.size(); i > prompt + 1; --i) {
      if (std::holds_alternative<events::AssistantTurn>(items[i - 1])) {
        last_step = i - 1;
        break;
      }
    }
    const bool earlier_step =
        last_step < items.size() &&
        std::any_of(items.begin() + static_cast<std::ptrdiff_t>(prompt) + 1,
                    items.begin() + static_cast<std::ptrdiff_t>(last_step),
                    [](const events::ContextItem& item) {
                      return std::holds_alternative<events::AssistantTurn>(item);
                    });
    if (earlier_step) {
      running_prompt = prompt;
      kept_begin = last_step;
      plan.summarizes_running_steps = true;
      if (prompt != task_index) plan.running_prompt = std::get<events::UserText>(items[prompt]);
    }
  }

  plan.kept.assign(items.begin() + static_cast<std::ptrdiff_t>(kept_begin), items.end());
  if (kept_begin < items.size() && IsPrompt(items[kept_begin])) {
    plan.first_kept_turn_id = std::get<events::UserText>(items[kept_begin]).turn_id;
  }
  if (task_index < kept_begin) plan.task = std::get<events::UserText>(items[task_index]);

  // Everything before the kept turns except the task, in order.
  std::vector<events::ContextItem> summarized;
  bool has_new = false;  // anything besides earlier summaries
  std::string turn_id;   // of the turn the current item belongs to
  for (size_t i = 0; i < kept_begin; ++i) {
    if (IsPrompt(items[i])) turn_id = std::get<events::UserText>(items[i]).turn_id;
    if (i == task_index) continue;
    if (i == running_prompt) {
      summarized.push_back(items[i]);  // context for the summarizer; kept
      continue;
    }
    if (!has_new && !IsSummary(items[i])) {
      has_new = true;
      plan.first_summarized_turn_id = turn_id;
    }
    summarized.push_back(items[i]);
    plan.replaced_tokens += EstimateItemTokens(items[i], reasoning);
  }
  if (!has_new) {
    plan.first_summarized_turn_id.clear();
    plan.replaced_tokens = 0;
    return plan;  // no chunks: nothing to compact
  }

  std::vector<events::ContextItem> prepared = WithoutDataPayloads(summarized);
  for (auto& item : prepared) DropUnrendered(item);
  if (!window_tokens) {
    plan.chunks.push_back(std::move(prepared));
    return plan;
  }

  const int64_t budget = std::max<int64_t>(
      kMinChunkTokens, *window_tokens - SummaryRequestOverheadTokens() -
                           settings.max_output_tokens - ChunkSafetyMarginTokens(*window_tokens));
  std::vector<events::ContextItem> chunk;
  int64_t chunk_rendered = 0;
  for (auto& next : prepared) {
    events::ContextItem item = std::move(next);
    int64_t rendered = RenderedTokens(item);
    if (rendered > budget) {
      item = FitItem(item, budget);
      rendered = RenderedTokens(item);
    }
    if (!chunk.empty() && chunk_rendered + rendered > budget) {
      plan.chunks.push_back(std::move(chunk));
      chunk.clear();
      chunk_rendered = 0;
    }
    chunk.push_back(std::move(item));
    chunk_rendered += rendered;
  }
  plan.chunks.push_back(std::move(chunk));
  return plan;
}

std::vector<events::ContextItem> AssembleCompacted(const CompactionPlan& plan,
                                                   const std::string& summary) {
  std::vector<events::ContextItem> out;
  out.reserve(plan.kept.size() + 3);
  if (plan.task) out.push_back(*plan.task);
  if (plan.running_prompt) out.push_back(*plan.running_prompt);
  out.push_back(events::UserText(summary, events::UserTextKind::kSummary));
  out.insert(out.end(), plan.kept.begin(), plan.kept.end());
  return out;
}

}  // namespace raw::context
