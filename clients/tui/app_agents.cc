// TuiApp: the agents of the daemon's config, for /agent: the picker and
// the completion of agent names.
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"
#include "clients/tui/text_width.h"

namespace raw::tui {

void TuiApp::LoadAgents(bool pick) {
  controller_.ListAgents([this, pick](const absl::StatusOr<v1::ListAgentsResponse>& response) {
    if (!response.ok()) {
      if (!pick) return;  // completion just stays without agent names
      AddError("Cannot list the agents", response.status());
      transcript_.AddInfoText(absl::StrCat("This session's agent is ", controller_.session().agent(),
                                           ". /agent NAME starts a new session with agent NAME."));
      return;
    }
    if (pick) agent_picker_.Open(controller_.agents(), controller_.session().agent());
  });
}

void TuiApp::HandleAgentPickerKey(const InputEvent& e) {
  switch (agent_picker_.HandleKey(e, std::max(1, screen_.rows() - 5))) {
    case AgentPicker::Outcome::kChosen:
      if (const v1::AgentInfo* chosen = agent_picker_.chosen()) {
        std::string name = chosen->name();
        agent_picker_.Close();
        controller_.ChangeAgent(name, options_.cwd);
      }
      return;
    case AgentPicker::Outcome::kCancelled:
      agent_picker_.Close();
      return;
    case AgentPicker::Outcome::kNone:
      return;
  }
}

std::vector<std::string> TuiApp::AgentNames() const {
  std::vector<std::string> names;
  for (const v1::AgentInfo& agent : controller_.agents()) names.push_back(agent.name());
  return names;
}

Lines TuiApp::AgentPopup(const std::string& text) const {
  Lines popup;
  std::optional<std::vector<std::string>> names = MatchAgentArgument(text, AgentNames());
  if (!names) return popup;
  const std::string sep = glyphs_.rule == "-" ? ", " : " · ";
  for (const std::string& name : *names) {
    for (const v1::AgentInfo& agent : controller_.agents()) {
      if (agent.name() != name) continue;
      StyledLine line("  ");
      line.Add(SanitizeForTerminal(name), Style{Role::kAccent, kAttrBold});
      line.Add(absl::StrCat("  model ", agent.model().empty() ? "(automatic)" : agent.model()),
               Style{Role::kDim});
      std::string marks = AgentMarks(agent, controller_.session().agent(), sep);
      if (!marks.empty()) line.Add("  " + marks, Style{Role::kAccent});
      popup.push_back(std::move(line));
    }
  }
  return popup;
}

}  // namespace raw::tui
