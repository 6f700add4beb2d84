#include "daemon/providers/reasoning_rule.h"

#include <algorithm>

#include "daemon/providers/opaque_state.h"

namespace raw::providers {

bool ReasoningRule::Sends(const events::AssistantTurn& turn) const {
  if (turn.reasoning.empty()) return false;
  switch (when) {
    case When::kNever:
      return false;
    case When::kWithToolCalls:
      return !turn.tool_calls.empty();
    case When::kWithBlob:
      return ReplaysOpaqueState(turn, model_id) &&
             std::any_of(turn.opaque.begin(), turn.opaque.end(), [&](const events::OpaqueBlob& b) {
               return b.provider == blob_provider && b.kind == blob_kind &&
                      (blob_id.empty() || b.id == blob_id);
             });
  }
  return false;
}

}  // namespace raw::providers
