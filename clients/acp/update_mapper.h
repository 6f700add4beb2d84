// UpdateMapper: Raw session events as ACP `session/update` updates (the
// `update` object of each notification).
//
// Live events: text and reasoning deltas stream as agent_message_chunk and
// agent_thought_chunk; a committed assistant message adds only what was
// not streamed (a provider that does not stream); a tool call batch opens
// one tool_call per call (status pending, with kind, title, locations, raw
// input and an edit's diff); ToolStarted moves it to in_progress and its
// ToolResult to completed or failed with its content. A user message from
// a turn another client started reads as user_message_chunk. Approvals,
// turn ends, usage and notices are the session bridge's.
//
// Replay (session/load): the whole display history as the client would
// have seen it: user_message_chunk, agent_thought_chunk,
// agent_message_chunk, and each tool call once, as a tool_call carrying
// its final status and content (the result that followed its own batch:
// a provider may use the same call id again in a later step).
//
// toolCallId: a call's own id the first time this mapper meets it (in a
// replay or live), then "<id>~<n>" for its n-th batch, so that a client
// never takes a later call for an earlier one whose id a provider reused.
//
// Not thread-safe: one owner (a session bridge).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.h"
#include "raw/v1/event.pb.h"

namespace raw::acp {

class UpdateMapper {
 public:
  // `cwd`: the session's directory (relative tool paths are shown absolute).
  explicit UpdateMapper(std::string cwd) : cwd_(std::move(cwd)) {}

  // `foreign_turn`: the event belongs to a turn this bridge did not start.
  std::vector<Json> Live(const v1::Event& event, bool foreign_turn);
  // A text or reasoning delta's one update, without building it as Json
  // (the streamed path: one per delta): its kind (agent_message_chunk or
  // agent_thought_chunk) and text (pointing into `event`), as Live would
  // give it. Null for any other event, which goes to Live.
  struct Delta {
    const char* kind;
    const std::string* text;
  };
  std::optional<Delta> LiveDelta(const v1::Event& event);
  std::vector<Json> Replay(const std::vector<v1::Event>& history);
  // The toolCallId of the live call `call_id` (of the latest batch that
  // held it; the id itself when none did), for its permission request.
  std::string ToolCallId(const std::string& call_id) const;

 private:
  struct LiveCall {
    v1::ToolCall call;
    std::string tool_call_id;
  };
  // The toolCallId of the next batch's call `call_id`.
  std::string NextToolCallId(const std::string& call_id);

  std::string cwd_;
  // Live calls by id: their results need their arguments (an edit's diff).
  std::map<std::string, LiveCall> calls_;
  // How many batches held each call id so far.
  std::map<std::string, int> batches_of_;
  // Every toolCallId given so far.
  std::set<std::string> issued_;
  // Whether the current step streamed text or reasoning.
  bool streamed_text_ = false;
  bool streamed_reasoning_ = false;
};

// A `*_chunk` update with one text block.
Json TextChunk(const char* kind, const std::string& text);

}  // namespace raw::acp
