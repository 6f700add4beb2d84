// SummaryModel: the model entry compaction's summary requests go out with.
//
// On some APIs the output cap counts the model's reasoning as well as its
// answer (OpenAI Responses max_output_tokens, Gemini maxOutputTokens,
// DeepSeek's thinking mode under Chat Completions max_tokens), so a cap of
// compact.max_output_tokens alone can be spent on reasoning before any
// summary text. For a model that reasons, summary requests therefore get a
// provider cap of compact.max_output_tokens plus kSummaryReasoningAllowance,
// and the lowest reasoning setting Raw can send for it (here for Responses;
// the Gemini adapter bounds its thinking for any ModelRequest::summary
// request); the visible summary
// is still held to compact.max_output_tokens (see the compactor).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>

#include "daemon/config/config.h"

namespace raw::context {

// Output tokens added to a summary request's cap for the reasoning of a
// model that reasons.
inline constexpr int64_t kSummaryReasoningAllowance = 8192;

// Whether `model`'s entry says its requests spend output tokens on
// reasoning: openai-responses with reasoning_effort, google-generate-content
// with thought summaries included (the default; "omit" is for models without
// thinking), openai-chat-completions with reasoning_content "send"
// (DeepSeek's thinking mode). Anthropic Messages requests ask for no
// thinking.
bool SpendsOutputOnReasoning(const config::ModelConfig& model);

// The provider's output cap for a summary request: `summary_tokens`
// (compact.max_output_tokens), plus kSummaryReasoningAllowance when the model
// spends output on reasoning, but then no more than the entry's own
// max_output_tokens when it sets one larger than `summary_tokens`.
int64_t SummaryOutputCap(const config::ModelConfig& model, int64_t summary_tokens);

// `model` as summary requests use it: max_output_tokens = SummaryOutputCap,
// and an openai-responses reasoning_effort lowered to "low" (or kept at
// "minimal", which not every reasoning model accepts, so it is never chosen
// for one that did not have it).
config::ModelConfig SummaryModel(const config::ModelConfig& model, int64_t summary_tokens);

}  // namespace raw::context
