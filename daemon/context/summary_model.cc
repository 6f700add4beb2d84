#include "daemon/context/summary_model.h"

#include <algorithm>

namespace raw::context {

bool SpendsOutputOnReasoning(const config::ModelConfig& model) {
  if (model.method == config::kMethodOpenAiResponses) return model.reasoning_effort.has_value();
  if (model.method == config::kMethodGoogleGenerateContent) return model.include_thoughts;
  if (model.method == config::kMethodOpenAiChat) return model.send_reasoning_content;
  return false;
}

int64_t SummaryOutputCap(const config::ModelConfig& model, int64_t summary_tokens) {
  if (!SpendsOutputOnReasoning(model)) return summary_tokens;
  int64_t cap = summary_tokens + kSummaryReasoningAllowance;
  if (model.max_output_tokens && *model.max_output_tokens > summary_tokens) {
    cap = std::min(cap, *model.max_output_tokens);
  }
  return cap;
}

config::ModelConfig SummaryModel(const config::ModelConfig& model, int64_t summary_tokens) {
  config::ModelConfig summary = model;
  summary.max_output_tokens = SummaryOutputCap(model, summary_tokens);
  if (summary.reasoning_effort && *summary.reasoning_effort != "minimal") {
    summary.reasoning_effort = "low";
  }
  return summary;
}

}  // namespace raw::context
