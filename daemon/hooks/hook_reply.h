// HookReply: what a hook that exited 0 said on stdout, parsed and checked.
//
// Stdout that is empty (or only whitespace) means "no objection". Otherwise
// it must be one JSON object whose known keys have the right types:
//   {"decision": "allow"|"deny"|"ask"|"block", "reason": "...",
//    "additional_context": "..."}
// Unknown keys are ignored; a null value counts as absent. Anything else is
// malformed output, reported with a message that shows what was wrong
// (for text that is not JSON: its first 80 bytes, escaped).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "daemon/hooks/hook_runner.h"

namespace raw::hooks {

struct HookReply {
  std::optional<HookDecision> decision;  // "block" and "deny" both give kDeny
  std::string reason;
  std::string additional_context;
};

// InvalidArgument with a message such as `stdout is not JSON: "ok\n"` or
// `stdout field "decision" must be a string, got a number`.
absl::StatusOr<HookReply> ParseHookReply(std::string_view stdout_text);

// At most `max_bytes` of `text` (trimmed), C-escaped and quoted, with "..."
// when cut: how hook output is quoted in warnings.
std::string QuoteSnippet(std::string_view text, size_t max_bytes);

}  // namespace raw::hooks
