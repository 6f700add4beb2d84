#include "daemon/providers/reasoning_rule.h"

#include <algorithm>

#include "daemon/providers/anthropic/stream_decoder.h"
#include "daemon/providers/google/thought_signature.h"

namespace raw::providers {

bool ReasoningRule::Sends(const events::AssistantTurn& turn) const {
  if (turn.reasoning.empty()) return false;
  switch (when) {
    case When::kNever:
      return false;
    case When::kWithToolCalls:
      return !turn.tool_calls.empty();
    case When::kWithBlob:
      return std::any_of(turn.opaque.begin(), turn.opaque.end(), [&](const events::OpaqueBlob& b) {
        return b.provider == blob_provider && b.kind == blob_kind &&
               (blob_id.empty() || b.id == blob_id);
      });
  }
  return false;
}

ReasoningRule ReasoningRuleFor(const config::ModelConfig& model) {
  ReasoningRule rule;
  if (model.method == config::kMethodOpenAiChat) {
    // openai_chat/request_builder.cc: reasoning_content on messages with calls.
    if (model.send_reasoning_content) rule.when = ReasoningRule::When::kWithToolCalls;
  } else if (model.method == config::kMethodAnthropicMessages) {
    // anthropic/request_builder.cc: thinking blocks, each with its signature
    // (a redacted block carries no text of the reasoning).
    rule.when = ReasoningRule::When::kWithBlob;
    rule.blob_provider = anthropic::kOpaqueProvider;
    rule.blob_kind = anthropic::kThinkingSignatureKind;
  } else if (model.method == config::kMethodGoogleGenerateContent) {
    // google/request_builder.cc: the thought part, with its signature.
    rule.when = ReasoningRule::When::kWithBlob;
    rule.blob_provider = google::kOpaqueProvider;
    rule.blob_kind = google::kThoughtSignatureKind;
    rule.blob_id = google::kThoughtAnchor;
  }
  return rule;
}

}  // namespace raw::providers
