// Token estimates: the size of text, of context items and of the runtime
// (system prompt and tool definitions) in tokens, without a tokenizer.
//
// The heuristic is four bytes per token, rounded up: close for English prose
// and source code with the BPE tokenizers of the major providers, high for
// long runs of whitespace, low for text outside Latin scripts. It is an
// estimate of size, not a count, and is shown with "~"; when a provider
// reports a count, ContextMeter uses that count as its baseline instead.
// Only byte lengths are read, so an estimate costs O(fields), not O(bytes).
//
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/events/conversation.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/reasoning_rule.h"

namespace raw::context {

inline constexpr int64_t kBytesPerToken = 4;
// The framing a provider adds around each message (role, separators).
inline constexpr int64_t kMessageOverheadTokens = 4;
// The framing of one tool call inside an assistant message, and of one tool
// definition inside the request's tool list.
inline constexpr int64_t kToolCallOverheadTokens = 4;
inline constexpr int64_t kToolDefinitionOverheadTokens = 8;

// ceil(bytes / kBytesPerToken); 0 for empty text.
int64_t EstimateTextTokens(std::string_view text);

// One image of a prompt, by Anthropic's published rule: width × height / 750
// after the long edge is scaled to at most 1,568 pixels, at most 1,600
// tokens (OpenAI and Google count common sizes within a factor of two of
// it). kImageTokensUnknownSize when the header gave no size.
inline constexpr int64_t kImageTokensUnknownSize = 1600;
int64_t EstimateImageTokens(const events::ImagePart& image);

// One message of the model context as a request carries it: its text,
// images, tool call names and arguments or tool output, and an assistant
// item's reasoning only where `reasoning` says the request sends it back
// (a model's reasoning that stays behind is not part of what it receives),
// plus kMessageOverheadTokens. Provider state that is replayed verbatim
// (OpaqueBlob) is not counted: it is mostly encrypted or signed copies of
// the reasoning. The default rule sends no reasoning.
int64_t EstimateItemTokens(const events::ContextItem& item,
                           const providers::ReasoningRule& reasoning = {});

// Sum of EstimateItemTokens over `items`.
int64_t EstimateItemsTokens(const std::vector<events::ContextItem>& items,
                            const providers::ReasoningRule& reasoning = {});

// The system prompt (with its message overhead, when non-empty) plus each
// tool definition: name, description and serialized parameter schema.
int64_t EstimateRuntimeTokens(const std::string& system_prompt,
                              const std::vector<providers::ToolDefinition>& tools);

}  // namespace raw::context
