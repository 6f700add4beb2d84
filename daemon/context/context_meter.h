// ContextMeter: the running estimate of what the model will receive next:
// the runtime (system prompt and selected tool definitions) plus every item
// of the model context.
//
// Two modes:
// - estimated: runtime + the sum of EstimateItemTokens over the items;
// - reported baseline: after a request whose usage reported input_tokens,
//   the provider's count covers the runtime and every item up to the
//   assistant item that request produced; later changes are estimated on
//   top of it (items appended since, and the runtime's change since).
//   Only the last response's count is a baseline: a response whose usage
//   has no input count (or that reported no usage) leaves the meter in the
//   estimated mode until a later response reports one.
// Calibration: every response that reports its input count also gives the
// ratio of that count to Raw's estimate of the same input (system prompt,
// tools and items), at least 1 and at most kMaxScalePermille / 1000. What
// is estimated (the whole context, or the change since a baseline) is
// scaled by the last such ratio, so that a model whose tokenizer counts
// more than the estimate (dense code, CJK text) is not shown, and not
// compacted, as if it counted less; the ratio outlives Reset (a compaction,
// /clear) and is dropped with a change of model. Contexts under
// kMinCalibrationTokens give no ratio (fixed overheads dominate them).
// Every step's update is O(size of the change), never O(history): Append
// and RecordReported touch only the new item, tokens() is O(1). Reset and
// Restore walk all items once (on load, and after compaction or /clear
// rewrote the context).
//
// The state survives daemon restarts through Serialize/Restore (the session
// row keeps the string).
//
// Thread-safety: not thread-safe; owned by one session runner, which calls
// it only from the thread that changes the context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"
#include "daemon/events/usage.h"
#include "daemon/providers/reasoning_rule.h"

namespace raw::context {

// `estimate` times `permille` / 1000, rounded up (a calibration ratio, see
// ContextMeter); `estimate` itself when it is not positive.
int64_t ScaleEstimate(int64_t estimate, int64_t permille);

class ContextMeter {
 public:
  ContextMeter() = default;

  // Whole estimate of `items` under `runtime_tokens`; drops any baseline.
  void Reset(int64_t runtime_tokens, const std::vector<events::ContextItem>& items);

  // The system prompt or the tools changed. O(1).
  void SetRuntime(int64_t runtime_tokens);

  // Which reasoning the model's requests send back, and to which model (the
  // session's model; none until set). A different rule, also one only for
  // another model (ReasoningRule::model: another API or model id, so
  // another tokenizer), re-estimates `items`, the context, at once, and
  // drops any baseline: a count reported under another rule or by another
  // model no longer stands.
  void SetReasoningRule(const providers::ReasoningRule& rule,
                        const std::vector<events::ContextItem>& items);
  const providers::ReasoningRule& reasoning_rule() const { return reasoning_; }

  // One item was added to the context. O(size of item). An assistant item
  // is a new response, so it drops any baseline: until RecordReported
  // gives that response's own count, the whole context is estimated.
  void Append(const events::ContextItem& item);

  // The usage of the request that produced the item just Append()ed. With
  // input_tokens known, the baseline becomes input_tokens + output_tokens
  // (or, when output is unknown, the estimate of that last item); when the
  // rule leaves that item's reasoning behind, less reasoning_tokens (or,
  // when those are unknown and the item holds reasoning text, input_tokens
  // + the estimate of what the item sends). Unknown
  // input drops any baseline: the whole context is estimated. A negative
  // count or one above 2^50 counts as unknown.
  void RecordReported(const events::Usage& usage);

  int64_t tokens() const;
  bool reported_baseline() const { return baseline_.has_value(); }
  // The calibration ratio in thousandths (1000: none).
  int64_t scale_permille() const { return scale_permille_; }
  // An estimate of Raw's (EstimateItemsTokens, say) on the provider's
  // scale, by the calibration ratio.
  int64_t Scaled(int64_t estimate) const;
  // For a meter made anew for a context whose session had a ratio
  // (compaction); values outside [1000, kMaxScalePermille] are clamped.
  void set_scale_permille(int64_t permille);
  static constexpr int64_t kMaxScalePermille = 8000;
  static constexpr int64_t kMinCalibrationTokens = 1000;
  size_t items() const { return items_; }

  // A compact text form of the state (JSON), for the session row.
  std::string Serialize() const;
  // Restores a Serialize()d state for `items` under `runtime_tokens` (the
  // runtime now; a change since the baseline is accounted). Falls back to
  // Reset(runtime_tokens, items) when `saved` is empty, malformed, or was
  // taken for a different number of items; and to the whole estimate when
  // an assistant item follows the baseline's items (its count is not the
  // last response's).
  void Restore(const std::string& saved, int64_t runtime_tokens,
               const std::vector<events::ContextItem>& items);
  // How many items a Serialize()d state was taken for (0 when `saved` is
  // empty or does not parse): the context's length without loading it.
  static size_t SavedItems(const std::string& saved);
  // The runtime estimate a Serialize()d state was taken under (nothing when
  // `saved` is empty, does not parse, or predates the field): what the
  // system prompt and tools weighed at the session's last change, for a
  // daemon that cannot know every tool yet (an MCP server not started
  // since it started).
  static std::optional<int64_t> SavedRuntime(const std::string& saved);

  // tokens() with the model's window (when it sets context_window_tokens).
  events::ContextEstimate Estimate(std::optional<int64_t> window_tokens) const;

 private:
  struct Baseline {
    int64_t tokens = 0;          // reported count covering items [0, items)
    int64_t runtime_tokens = 0;  // runtime estimate when it was reported
    size_t items = 0;
  };

  void DropBaseline();

  int64_t runtime_tokens_ = 0;
  size_t items_ = 0;
  int64_t items_tokens_ = 0;      // estimate of every item
  int64_t last_item_tokens_ = 0;  // estimate of the last appended item
  // The last appended item is an assistant turn whose reasoning the next
  // request leaves behind, and whether it holds reasoning text.
  bool last_reasoning_withheld_ = false;
  bool last_reasoning_text_ = false;
  providers::ReasoningRule reasoning_;
  std::optional<Baseline> baseline_;
  int64_t since_baseline_tokens_ = 0;  // estimate of items appended since
  int64_t scale_permille_ = 1000;      // see "Calibration" above
};

}  // namespace raw::context
