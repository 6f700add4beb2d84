// The model context: the items the next inference request includes, in
// order. Provider-neutral; each adapter maps these to its own wire shapes.
// Stored separately from the display history (see store/), so compaction and
// /clear can rewrite this record while the display history stays whole.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace raw::events {

struct UserText {
  std::string text;
  bool operator==(const UserText&) const = default;
};

struct ToolCallRequest {
  std::string call_id;    // the provider's id
  std::string name;       // the model-facing name the model used
  std::string arguments;  // exactly the JSON text the model produced
  bool operator==(const ToolCallRequest&) const = default;
};

// Provider state that must be replayed verbatim to the same provider (for
// example DeepSeek reasoning_content or an Anthropic thinking signature).
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
