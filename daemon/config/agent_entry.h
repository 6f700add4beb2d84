// AgentEntry: validation of one agents.<name> object of config.json into an
// AgentConfig, filling the defaults of what it leaves out, plus the checks
// that relate an agent to its model. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

inline constexpr int kMaxSteps = 1000;
inline constexpr int kMaxKeepRecentTurns = 1000;

// Reads `value` found at `path` (e.g. "agents.coder"). Records every problem
// in `problems` and returns what could be read; the result is meaningful only
// when no problem was added. Does not check that the model exists (the
// caller knows the models).
AgentConfig ParseAgentEntry(const std::string& name, const Json& value, const std::string& path,
                            std::vector<ConfigProblem>& problems);

// Checks the shape of one tools.use entry: a qualified tool name or glob
// under builtin/, mcp/ or pkg/ ("builtin/read_file", "builtin/*",
// "mcp/github/*"). Whether a tool matches is the registry's business.
// Returns what is wrong, or nullopt.
std::optional<std::string> CheckToolPattern(absl::string_view pattern);

// The output cap an anthropic-messages request sends when the model sets
// no max_output_tokens (the API requires one).
inline constexpr int64_t kAnthropicDefaultMaxTokens = 8192;

// Room compact.trigger_tokens must leave in the window: the output reserve
// (the model's max_output_tokens, else what its requests send without one:
// kAnthropicDefaultMaxTokens for anthropic-messages, kDefaultOutputReserve
// for the others, which send no cap) and a safety margin of
// kCompactMarginPercent of the window, rounded up, since the estimate is
// not a tokenizer count.
inline constexpr int64_t kDefaultOutputReserve = 4096;
inline constexpr int64_t kCompactMarginPercent = 5;
int64_t CompactOutputReserve(const ModelConfig& model);
int64_t CompactSafetyMargin(int64_t window);

// Checks that the agent's compact.trigger_tokens (if set) fits the model:
// the model must set context_window_tokens, and trigger + output reserve +
// safety margin <= window. Returns the message for
// agents.<name>.compact.trigger_tokens (naming the numbers), or nullopt.
std::optional<std::string> CheckCompactFits(const AgentConfig& agent, const ModelConfig& model);

}  // namespace raw::config
