// Hook fields: the event-specific part of a hook's stdin document, built in
// one place so that every caller sends the shapes docs/hooks.md describes.
// The results are the `fields` argument of RunHooks.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/json.h"
#include "daemon/events/session_event.h"

namespace raw::hooks {

// session_start: no fields.
Json SessionStartFields();

// user_prompt_submit: {"prompt"}.
Json UserPromptSubmitFields(const std::string& prompt);

// pre_tool_use: {"tool_name", "tool_input", "call_id"}. `tool_input` is the
// call's arguments (an object; anything else is sent as it is).
Json PreToolUseFields(const std::string& tool_name, const Json& tool_input,
                      const std::string& call_id);

// post_tool_use: {"tool_name", "tool_input", "tool_result": {"status",
// "content"}}; status is "ok", "error", "cancelled", "denied" or "skipped".
Json PostToolUseFields(const std::string& tool_name, const Json& tool_input,
                       events::ToolStatus status, const std::string& content);

enum class CompactTrigger { kManual, kAuto };

// pre_compact: {"reason": "manual"|"auto"}.
Json PreCompactFields(CompactTrigger trigger);

// turn_end: {"reason": "completed"|"max_steps"|"cancelled"|"error",
// "message"}.
Json TurnEndFields(events::TurnEndReason reason, const std::string& message);

// notification: {"level": "info"|"warning"|"error", "message"}.
Json NotificationFields(events::NoticeLevel level, const std::string& message);

}  // namespace raw::hooks
