// The model context: the items the next inference request includes, in
// order. Provider-neutral; each adapter maps these to its own wire shapes.
// Stored separately from the display history (see store/), so compaction and
// /clear can rewrite this record while the display history stays whole.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "daemon/events/image_part.h"

namespace raw::events {

// A user message of the model context. kPrompt items start a turn (the
// first one in the context is the session's original task); a kSummary item
// holds a compaction summary of older turns and is sent as a user message.
// `turn_id` names the display-history turn a prompt started (empty for
// summaries and for items stored before it was recorded); it never reaches
// a provider. A prompt may carry images, sent after its text.
enum class UserTextKind { kPrompt, kSummary };

struct UserText {
  UserText() = default;
  UserText(std::string text_in, UserTextKind kind_in = UserTextKind::kPrompt,
           std::string turn_id_in = "")
      : text(std::move(text_in)), kind(kind_in), turn_id(std::move(turn_id_in)) {}
  std::string text;
  UserTextKind kind = UserTextKind::kPrompt;
  std::string turn_id;
  std::vector<ImagePart> images = {};
  bool operator==(const UserText&) const = default;
};

struct ToolCallRequest {
  std::string call_id;    // the provider's id
  std::string name;       // the model-facing name the model used
  std::string arguments;  // exactly the JSON text the model produced
  bool operator==(const ToolCallRequest&) const = default;
};

// Provider state that must be replayed verbatim to the same provider (for
// example an Anthropic thinking signature or a Gemini thought signature).
struct OpaqueBlob {
  std::string provider;
  std::string kind;
  std::string id;
  std::string data;
  bool operator==(const OpaqueBlob&) const = default;
};

struct AssistantTurn {
  std::string text;
  std::string reasoning;
  std::vector<ToolCallRequest> tool_calls;
  std::vector<OpaqueBlob> opaque;
  // With opaque state: the model_id of the model that gave the answer. The
  // state goes back only to that model (providers::ReplaysOpaqueState): a
  // signature another model made can fail validation. Empty without opaque
  // state, and in items stored before Raw recorded it (their state goes
  // back to any model of its provider).
  std::string model = {};
  bool operator==(const AssistantTurn&) const = default;
};

struct ToolOutcome {
  std::string call_id;
  std::string name;
  std::string content;
  bool is_error = false;
  bool operator==(const ToolOutcome&) const = default;
};

using ContextItem = std::variant<UserText, AssistantTurn, ToolOutcome>;

}  // namespace raw::events
