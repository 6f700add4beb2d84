#include "daemon/context/context_meter.h"

#include <algorithm>
#include <variant>

#include "common/json.h"
#include "daemon/context/token_estimate.h"

namespace raw::context {
namespace {

constexpr int kFormatVersion = 1;
// Larger than any real context; guards against a corrupted row.
constexpr int64_t kMaxPlausibleTokens = int64_t{1} << 50;

// The non-negative integer at `key`, if `j` has one.
std::optional<int64_t> IntField(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  const auto value = it->get<int64_t>();
  if (value < 0 || value > kMaxPlausibleTokens) return std::nullopt;
  return value;
}

// A Serialize()d state of this format, or nothing.
std::optional<Json> ParseSaved(const std::string& saved) {
  if (saved.empty()) return std::nullopt;
  auto parsed = ParseJson(saved);
  if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
  auto version = parsed->find("v");
  if (version == parsed->end() || !version->is_number_integer() ||
      version->get<int64_t>() != kFormatVersion) {
    return std::nullopt;
  }
  return *std::move(parsed);
}

}  // namespace

void ContextMeter::Reset(int64_t runtime_tokens, const std::vector<events::ContextItem>& items) {
  runtime_tokens_ = runtime_tokens;
  items_ = items.size();
  items_tokens_ = EstimateItemsTokens(items, reasoning_);
  last_item_tokens_ = items.empty() ? 0 : EstimateItemTokens(items.back(), reasoning_);
  last_reasoning_withheld_ = false;
  last_reasoning_text_ = false;
  DropBaseline();
}

void ContextMeter::SetReasoningRule(const providers::ReasoningRule& rule,
                                    const std::vector<events::ContextItem>& items) {
  if (rule == reasoning_) return;
  // Another model counts with another tokenizer: its own responses give
  // the ratio again.
  if (rule.model != reasoning_.model) scale_permille_ = 1000;
  reasoning_ = rule;
  Reset(runtime_tokens_, items);
}

int64_t ScaleEstimate(int64_t estimate, int64_t permille) {
  if (permille == 1000 || estimate <= 0) return estimate;
  // Estimates stay far below 2^50 and ratios at most 8000, so the product
  // fits.
  return (estimate * permille + 999) / 1000;
}

int64_t ContextMeter::Scaled(int64_t estimate) const {
  return ScaleEstimate(estimate, scale_permille_);
}

void ContextMeter::set_scale_permille(int64_t permille) {
  scale_permille_ = std::clamp<int64_t>(permille, 1000, kMaxScalePermille);
}

void ContextMeter::SetRuntime(int64_t runtime_tokens) { runtime_tokens_ = runtime_tokens; }

void ContextMeter::Append(const events::ContextItem& item) {
  const int64_t t = EstimateItemTokens(item, reasoning_);
  const auto* turn = std::get_if<events::AssistantTurn>(&item);
  last_reasoning_withheld_ = turn != nullptr && !reasoning_.Sends(*turn);
  last_reasoning_text_ = turn != nullptr && !turn->reasoning.empty();
  ++items_;
  items_tokens_ += t;
  last_item_tokens_ = t;
  since_baseline_tokens_ += t;
  // A new response: the count an earlier one reported is no longer the
  // last response's (RecordReported sets that response's own).
  if (std::holds_alternative<events::AssistantTurn>(item)) DropBaseline();
}

void ContextMeter::DropBaseline() {
  baseline_.reset();
  since_baseline_tokens_ = 0;
}

void ContextMeter::RecordReported(const events::Usage& usage) {
  // A count outside [0, kMaxPlausibleTokens] is as good as unknown; within
  // it, the sum cannot overflow.
  auto plausible = [](std::optional<int64_t> n) {
    return n.has_value() && *n >= 0 && *n <= kMaxPlausibleTokens ? n : std::nullopt;
  };
  const std::optional<int64_t> input = plausible(usage.input_tokens);
  if (!input) {
    DropBaseline();
    return;
  }
  // The response's own share: its output count, less the reasoning the
  // next request leaves behind (counted in the output); the estimate of
  // what it sends when that share is not known.
  int64_t response = last_item_tokens_;
  if (const std::optional<int64_t> output = plausible(usage.output_tokens)) {
    response = *output;
    if (last_reasoning_withheld_) {
      if (const std::optional<int64_t> reasoning = plausible(usage.reasoning_tokens)) {
        response = std::max<int64_t>(*output - *reasoning, 0);
      } else if (last_reasoning_text_) {
        response = last_item_tokens_;
      }
    }
  }
  // The input covered the runtime and every item before this response's.
  const int64_t estimated_input = runtime_tokens_ + items_tokens_ - last_item_tokens_;
  if (estimated_input >= kMinCalibrationTokens) {
    set_scale_permille(*input * 1000 / estimated_input);
  }
  Baseline b;
  b.tokens = *input + response;
  b.runtime_tokens = runtime_tokens_;
  b.items = items_;
  baseline_ = b;
  since_baseline_tokens_ = 0;
}

int64_t ContextMeter::tokens() const {
  if (!baseline_) return Scaled(runtime_tokens_ + items_tokens_);
  const int64_t change = since_baseline_tokens_ + (runtime_tokens_ - baseline_->runtime_tokens);
  const int64_t t = baseline_->tokens + (change < 0 ? change : Scaled(change));
  return std::max<int64_t>(t, 0);
}

std::string ContextMeter::Serialize() const {
  Json j = Json::object();
  j["v"] = kFormatVersion;
  j["items"] = static_cast<int64_t>(items_);
  j["runtime"] = runtime_tokens_;
  if (scale_permille_ != 1000) j["scale"] = scale_permille_;
  if (baseline_) {
    j["baseline"] = baseline_->tokens;
    j["baseline_runtime"] = baseline_->runtime_tokens;
    j["baseline_items"] = static_cast<int64_t>(baseline_->items);
  }
  return DumpJson(j);
}

void ContextMeter::Restore(const std::string& saved, int64_t runtime_tokens,
                           const std::vector<events::ContextItem>& items) {
  Reset(runtime_tokens, items);
  std::optional<Json> parsed = ParseSaved(saved);
  if (!parsed) return;
  const Json& j = *parsed;
  auto count = IntField(j, "items");
  if (!count || static_cast<size_t>(*count) != items.size()) return;
  if (auto scale = IntField(j, "scale")) set_scale_permille(*scale);
  if (!j.contains("baseline")) return;  // a whole estimate: Reset did it
  auto tokens = IntField(j, "baseline");
  auto runtime = IntField(j, "baseline_runtime");
  auto covered = IntField(j, "baseline_items");
  if (!tokens || !runtime || !covered || static_cast<size_t>(*covered) > items.size()) return;
  Baseline b;
  b.tokens = *tokens;
  b.runtime_tokens = *runtime;
  b.items = static_cast<size_t>(*covered);
  baseline_ = b;
  since_baseline_tokens_ = 0;
  for (size_t i = b.items; i < items.size(); ++i) {
    // A response after the baseline's (saved by a build that kept an older
    // count over a response that reported none): the whole estimate.
    if (std::holds_alternative<events::AssistantTurn>(items[i])) {
      DropBaseline();
      return;
    }
    since_baseline_tokens_ += EstimateItemTokens(items[i], reasoning_);
  }
}

size_t ContextMeter::SavedItems(const std::string& saved) {
  std::optional<Json> parsed = ParseSaved(saved);
  if (!parsed) return 0;
  auto count = IntField(*parsed, "items");
  return count && *count > 0 ? static_cast<size_t>(*count) : 0;
}

std::optional<int64_t> ContextMeter::SavedRuntime(const std::string& saved) {
  std::optional<Json> parsed = ParseSaved(saved);
  if (!parsed) return std::nullopt;
  auto runtime = IntField(*parsed, "runtime");
  if (!runtime || *runtime < 0) return std::nullopt;
  return *runtime;
}

events::ContextEstimate ContextMeter::Estimate(std::optional<int64_t> window_tokens) const {
  events::ContextEstimate e;
  e.tokens = tokens();
  e.window_tokens = window_tokens;
  e.reported_baseline = reported_baseline();
  return e;
}

}  // namespace raw::context
