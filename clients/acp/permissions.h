// Approvals as ACP permission requests: each pending call of a Raw
// ApprovalRequested becomes one session/request_permission, and the
// client's choice becomes that call's ApprovalAnswer.
//
// Options (optionId: kind, what Raw does):
//   allow_once:        allow_once     ALLOW_ONCE
//   allow_session:     allow_always   ALLOW_SESSION with the exact rules
//                                     (session_rules option 0)
//   allow_session_wide: allow_always  ALLOW_SESSION with the program
//                                     patterns (option 1; when offered)
//   reject_once:       reject_once    DENY
//   reject_always:     reject_always  DENY, telling the model the user
//                                     does not want the call retried
// The request's toolCall carries the call in full, whatever its title
// shows: an edit's diff, else a text block with the whole command (bash) or
// every argument (FullCallText), then a text block with why Raw asks
// ("Needs approval: <reason>"). A title that had to be shortened says so.
//
// The allow_session options are offered only when the call has session
// rules (otherwise Raw would allow it once); each names the rules it adds.
// Raw keeps no "deny for this session" rule, so reject_always is a denial
// whose message asks the model not to retry. Anything else (an error, the
// `cancelled` outcome, an unknown option) denies the call: a rule never
// fails open.
//
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "clients/acp/json_rpc.h"
#include "common/json.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

// The params of session/request_permission for one pending call, shown as
// the tool call `tool_call_id` (UpdateMapper::ToolCallId; the call's own id
// when empty).
Json PermissionRequest(const std::string& session_id, const v1::ApprovalCall& call,
                       const std::string& cwd, const std::string& tool_call_id = "");

// The answer for `call` from the client's response to its request.
v1::ApprovalAnswer PermissionAnswer(const v1::ApprovalCall& call, const RpcResponse& response);

}  // namespace raw::acp
