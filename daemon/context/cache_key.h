// The prompt-cache key Raw sends with a session's requests, as the product
// spec's caching table says:
// - OpenAI Chat Completions and Responses (provider "openai"): a stable key
//   per session, unless the model sets cache.key, which takes precedence;
// - any model with an explicit cache.key: that key;
// - every other service: no key (Raw guesses no cache fields).
// The derived key depends on the session and on the effective runtime the
// model sees before the conversation: the system prompt and the selected
// tool definitions. It therefore changes exactly once when those change, and
// never for anything a client displays. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/providers/provider.h"

namespace raw::context {

// "raw-" + 16 hex digits of a stable 64-bit hash (FNV-1a) of the session id,
// the system prompt and the serialized tool definitions.
std::string DerivedCacheKey(const std::string& session_id, const std::string& system_prompt,
                            const std::vector<providers::ToolDefinition>& tools);

std::optional<std::string> PromptCacheKeyFor(const config::ModelConfig& model,
                                             const std::string& session_id,
                                             const std::string& system_prompt,
                                             const std::vector<providers::ToolDefinition>& tools);

}  // namespace raw::context
