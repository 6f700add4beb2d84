// Hooks: user commands run at session events (docs/hooks.md is the
// contract). RunHooks runs the agent's hooks for one event, in the order the
// agent lists them, and folds their answers into one outcome.
//
// Each hook gets one JSON document on stdin:
//   {"event": "pre_tool_use", "hook": "<name>", "session_id": "...",
//    "cwd": "...", <fields>}
// where <fields> are given by the caller (tool_name, tool_input, tool_result,
// prompt, reason, message, ... as fits the event; hook_fields.h builds
// them). It answers by exit code:
// 0 = no objection (stdout may hold a JSON object, below), 2 = deny/block
// with stderr (trimmed) as the reason; anything else, a timeout, a crash or
// stdout that is neither empty nor a JSON object is a failure, handled by the
// hook's on_failure policy (ignore: a warning; block: as exit 2).
// Stdout JSON: {"decision": "allow"|"deny"|"ask"|"block", "reason": "...",
// "additional_context": "..."}; unknown keys are ignored, a wrong type is
// malformed output. Which decisions count depends on the event:
// pre_tool_use takes allow/deny/ask; user_prompt_submit takes block and
// additional_context; others ignore decisions.
// Combination: deny/block wins (first one, stops running later hooks), then
// ask, then allow. A hook never writes to the transcript itself; the caller
// records the outcome.
// Thread-safety: stateless; runs on the calling (turn) thread.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/config/config.h"

namespace raw::hooks {

enum class HookDecision { kNone, kAllow, kAsk, kDeny };  // kDeny also = block

struct HookOutcome {
  HookDecision decision = HookDecision::kNone;
  std::string reason;     // of the deciding hook; names the hook
  std::string additional_context;  // joined with blank lines, in hook order
  // One line per hook that failed or misbehaved, for a warning notice, e.g.
  // "hook \"lint\" timed out after 5 s (on_failure: ignore)".
  std::vector<std::string> warnings;
  int hooks_run = 0;
  // The cancel token fired while a hook ran: the hook was killed, later
  // hooks did not run, and the decision is kNone (the caller is cancelling).
  bool cancelled = false;
};

struct HookContext {
  std::string session_id;
  std::string cwd;
  // Environment names the hook's command does not get (API keys and secret
  // variables; config/withheld_env.h).
  std::set<std::string> withheld_env{};
  // Applied to every string of the input document (keys too) before a hook
  // reads it, so known secret values never reach one; null = none hidden.
  std::function<std::string(const std::string&)> redact = nullptr;
};

// "pre_tool_use", ...; and the reverse (nullopt for an unknown name).
const char* HookEventName(config::HookEvent event);
std::optional<config::HookEvent> HookEventFromName(std::string_view name);

// Whether hooks of `event` can decide anything (pre_tool_use: allow, ask,
// deny; user_prompt_submit: block), and whether their additional_context
// is used (user_prompt_submit). Decisions of other events are ignored.
bool EventTakesDecisions(config::HookEvent event);
bool EventTakesContext(config::HookEvent event);

// Runs each hook in `hooks` whose event is `event` and whose matcher (a
// kText Pattern) matches `tool_name` (empty matcher = all; tool_name is
// ignored for events without a tool).
HookOutcome RunHooks(const std::vector<config::HookConfig>& hooks, config::HookEvent event,
                     const std::string& tool_name, const HookContext& context,
                     const Json& fields, const CancelToken& cancel);

}  // namespace raw::hooks
