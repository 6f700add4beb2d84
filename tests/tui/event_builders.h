// Builders of raw.v1 events for the terminal client's unit tests.
#pragma once

#include <string>

#include "raw/v1/event.pb.h"

namespace raw::tui::testing {

inline v1::Event Ev(uint64_t seq, const std::string& turn = "t1") {
  v1::Event e;
  e.set_session_id("s1");
  e.set_seq(seq);
  e.set_turn_id(turn);
  e.set_time_unix_ms(1000000 + static_cast<int64_t>(seq));
  return e;
}

inline v1::Event TurnStarted(uint64_t seq, const std::string& text, const std::string& turn = "t1") {
  v1::Event e = Ev(seq, turn);
  e.mutable_turn_started()->set_user_text(text);
  return e;
}

inline v1::Event TextDelta(uint64_t seq, const std::string& text) {
  v1::Event e = Ev(seq);
  e.mutable_text_delta()->set_text(text);
  return e;
}

inline v1::Event Assistant(uint64_t seq, const std::string& text, const std::string& reasoning = "") {
  v1::Event e = Ev(seq);
  e.mutable_assistant_message()->set_text(text);
  e.mutable_assistant_message()->set_reasoning(reasoning);
  e.mutable_assistant_message()->set_step(1);
  return e;
}

inline v1::Event Batch(uint64_t seq, const std::string& call_id, const std::string& name,
                       const std::string& args) {
  v1::Event e = Ev(seq);
  v1::ToolCall* call = e.mutable_tool_call_batch()->add_calls();
  call->set_call_id(call_id);
  call->set_name(name);
  call->set_tool("builtin/" + name);
  call->set_arguments(args);
  return e;
}

inline v1::Event Started(uint64_t seq, const std::string& call_id, const std::string& name) {
  v1::Event e = Ev(seq);
  e.mutable_tool_started()->set_call_id(call_id);
  e.mutable_tool_started()->set_name(name);
  return e;
}

inline v1::Event Result(uint64_t seq, const std::string& call_id, const std::string& name,
                        v1::ToolResultStatus status, const std::string& content,
                        const std::string& display = "") {
  v1::Event e = Ev(seq);
  v1::ToolResult* r = e.mutable_tool_result();
  r->set_call_id(call_id);
  r->set_name(name);
  r->set_status(status);
  r->set_content(content);
  r->set_display(display);
  r->set_duration_ms(12);
  return e;
}

inline v1::Event Ended(uint64_t seq, v1::TurnEndReason reason, const std::string& message = "") {
  v1::Event e = Ev(seq);
  e.mutable_turn_ended()->set_reason(reason);
  e.mutable_turn_ended()->set_message(message);
  return e;
}

}  // namespace raw::tui::testing
