// A history whose items the Anthropic and Google adapters merge into fewer
// messages: tool results in runs (answered out of call order, one for a call
// no turn made), user text after tool results, an empty turn, and turns
// with the vendor's replay blobs. For the tests that build bodies from the
// kept history (providers/serialized_history.h) against fresh ones.
#pragma once

#include <string>
#include <vector>

#include "daemon/events/conversation.h"
#include "daemon/providers/provider.h"

namespace raw::providers::testing {

// `provider`, `signature_kind`: the vendor's opaque blob names, so that its
// thinking is replayed; `call_anchor` prefixes a call id to anchor a
// signature to a call (empty when the vendor has none).
inline std::vector<events::ContextItem> MergedHistory(const std::string& provider,
                                                      const std::string& signature_kind,
                                                      const std::string& call_anchor) {
  events::AssistantTurn calls;
  calls.reasoning = "I need both files.";
  calls.text = "Reading both.";
  calls.tool_calls = {{"call_A", "read_file", R"({"path":"a.txt"})"},
                      {"call_B", "read_file", R"({"path":"b.txt"})"}};
  calls.opaque = {{provider, signature_kind, call_anchor.empty() ? "18" : "thought", "sig_1"},
                  {provider, signature_kind, call_anchor + "call_B", "sig_2"}};
  events::AssistantTurn one_call;
  one_call.tool_calls = {{"call_C", "bash", R"({"command":"ls"})"}};
  return {
      events::UserText{"first \"quoted\" question", events::UserTextKind::kPrompt, "t1"},
      calls,
      events::ToolOutcome{"call_B", "read_file", "b text", false},
      events::ToolOutcome{"call_A", "read_file", "", true},
      events::ToolOutcome{"call_X", "ghost", "no such call", true},
      events::AssistantTurn{"both read", "", {}, {}},
      events::UserText{"next question"},
      events::AssistantTurn{},
      events::UserText{"again"},
      one_call,
      events::ToolOutcome{"call_C", "bash", "a.txt\nb.txt", false},
      events::UserText{"a note after the result"},
      events::AssistantTurn{"done \xe2\x80\x94 with UTF-8", "", {}, {}},
      events::UserText{"summary", events::UserTextKind::kSummary, ""},
      events::UserText{"last"},
  };
}

// A request over `items` with a short system prompt, building from
// `history` (null: nothing kept) for `generation`.
inline ModelRequest HistoryRequest(const std::vector<events::ContextItem>& items,
                                   SerializedHistory* history, uint64_t generation) {
  ModelRequest request;
  request.system_prompt = "You are terse.";
  request.messages = items;
  request.history = history;
  request.history_generation = generation;
  return request;
}

}  // namespace raw::providers::testing
