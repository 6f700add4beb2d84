// ReasoningRule: which of an assistant item's reasoning text a model's
// requests carry back, by the request builders' rules (ReasoningRuleFor in
// provider_factory.h makes it from a model entry). The reasoning a
// request leaves behind is not part of what the model receives, so the
// context estimate (context/token_estimate.h) counts only what this rule
// says is sent.
//
// Value type; thread-safe.
#pragma once

#include <string>

#include "daemon/events/conversation.h"

namespace raw::providers {

struct ReasoningRule {
  enum class When {
    kNever,          // Responses (only the encrypted item goes back), other methods
    kWithToolCalls,  // Chat Completions, reasoning_content "send": on messages with calls
    kWithBlob,       // Messages, Generate Content: with the signature that carries it
  };
  When when = When::kNever;
  // kWithBlob: the OpaqueBlob whose presence sends the reasoning text: its
  // provider label, kind and (when not empty) id.
  std::string blob_provider;
  std::string blob_kind;
  std::string blob_id;
  // kWithBlob: the model the requests go to; the blob of an item another
  // model answered stays behind (opaque_state.h).
  std::string model_id;
  // The API and model the requests go to ("<method> <model_id>"), whatever
  // `when`: two models' tokenizers differ, so a count one reported is no
  // baseline for the other (ContextMeter::SetReasoningRule).
  std::string model;

  // Whether a request carries `turn.reasoning` back (never when it is empty).
  bool Sends(const events::AssistantTurn& turn) const;
  bool operator==(const ReasoningRule&) const = default;
};

}  // namespace raw::providers
