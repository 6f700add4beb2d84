// AgentPicker: the list that /agent (without a name) opens: every agent the
// daemon's config defines, with its model and tools, the default agent and
// the open session's agent marked. Up/Down/PageUp/PageDown move, Enter
// starts a new session with the chosen agent, Esc cancels.
//
// Single-threaded; no I/O: the app loads the agents (ListAgents) and acts
// on the choice.
#pragma once

#include <string>
#include <vector>

#include "clients/tui/input_decoder.h"
#include "clients/tui/styled_line.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::tui {

class AgentPicker {
 public:
  enum class Outcome { kNone, kChosen, kCancelled };

  // Selects `current` (the open session's agent) when it is listed, else
  // the default agent.
  void Open(std::vector<v1::AgentInfo> agents, std::string current);
  void Close() { open_ = false; }
  bool open() const { return open_; }

  // kChosen: chosen() names the agent.
  Outcome HandleKey(const InputEvent& event, int page_rows);
  const v1::AgentInfo* chosen() const;

  Lines Render(int width, int rows, const Glyphs& glyphs) const;

 private:
  bool open_ = false;
  std::vector<v1::AgentInfo> agents_;
  std::string current_;
  int selected_ = 0;
};

// "default · current": how an agent relates to the open session (empty when
// neither); `separator` between the two.
std::string AgentMarks(const v1::AgentInfo& agent, const std::string& current,
                       const std::string& separator);

}  // namespace raw::tui
