#include "clients/tui/agent_picker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "clients/tui/text_width.h"

namespace raw::tui {

std::string AgentMarks(const v1::AgentInfo& agent, const std::string& current,
                       const std::string& separator) {
  std::vector<std::string> marks;
  if (agent.is_default()) marks.push_back("default");
  if (!current.empty() && agent.name() == current) marks.push_back("current");
  return absl::StrJoin(marks, separator);
}

void AgentPicker::Open(std::vector<v1::AgentInfo> agents, std::string current) {
  agents_ = std::move(agents);
  current_ = std::move(current);
  selected_ = 0;
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (agents_[i].is_default()) selected_ = static_cast<int>(i);
  }
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (agents_[i].name() == current_) selected_ = static_cast<int>(i);
  }
  open_ = true;
}

const v1::AgentInfo* AgentPicker::chosen() const {
  if (agents_.empty()) return nullptr;
  return &agents_[static_cast<size_t>(selected_)];
}

AgentPicker::Outcome AgentPicker::HandleKey(const InputEvent& e, int page_rows) {
  const int last = std::max(0, static_cast<int>(agents_.size()) - 1);
  switch (e.key) {
    case Key::kUp:
    case Key::kWheelUp: selected_ = std::max(0, selected_ - 1); break;
    case Key::kDown:
    case Key::kWheelDown: selected_ = std::min(last, selected_ + 1); break;
    case Key::kPageUp: selected_ = std::max(0, selected_ - page_rows); break;
    case Key::kPageDown: selected_ = std::min(last, selected_ + page_rows); break;
    case Key::kHome: selected_ = 0; break;
    case Key::kEnd: selected_ = last; break;
    case Key::kEnter: return agents_.empty() ? Outcome::kNone : Outcome::kChosen;
    case Key::kEscape: return Outcome::kCancelled;
    case Key::kCtrl:
      if (e.ctrl == 'c' || e.ctrl == 'd') return Outcome::kCancelled;
      if (e.ctrl == 'p') selected_ = std::max(0, selected_ - 1);
      if (e.ctrl == 'n') selected_ = std::min(last, selected_ + 1);
      break;
    default: break;
  }
  return Outcome::kNone;
}

Lines AgentPicker::Render(int width, int rows, const Glyphs& g) const {
  Lines out;
  out.emplace_back("Start a new session with an agent", Style{Role::kAccent, kAttrBold});
  out.emplace_back("Up/Down to choose, Enter to start the session, Esc to cancel",
                   Style{Role::kDim});
  out.emplace_back();
  if (agents_.empty()) {
    out.emplace_back("The daemon's config defines no agents.", Style{Role::kDim});
    return out;
  }
  size_t name_width = 0;
  size_t model_width = 0;
  for (const v1::AgentInfo& a : agents_) {
    name_width = std::max(name_width, a.name().size());
    model_width = std::max(model_width, a.model().empty() ? 11 : a.model().size());
  }
  const std::string sep = g.rule == "-" ? ", " : " · ";
  const int list_rows = std::max(1, rows - static_cast<int>(out.size()));
  int first = std::clamp(selected_ - list_rows / 2, 0,
                         std::max(0, static_cast<int>(agents_.size()) - list_rows));
  for (int i = first; i < static_cast<int>(agents_.size()) && i < first + list_rows; ++i) {
    const v1::AgentInfo& a = agents_[static_cast<size_t>(i)];
    bool selected = i == selected_;
    Style style = selected ? Style{Role::kSelected, kAttrBold} : Style{};
    std::string text = absl::StrFormat(
        "%s %-*s  model %-*s  ", selected ? g.prompt : " ", static_cast<int>(name_width), a.name(),
        static_cast<int>(model_width), a.model().empty() ? "(automatic)" : a.model());
    StyledLine line;
    line.Add(SanitizeForTerminal(text), style);
    std::string marks = AgentMarks(a, current_, sep);
    if (!marks.empty()) {
      line.Add(marks, selected ? style : Style{Role::kAccent});
      line.Add("  ", selected ? style : Style{});
    }
    std::string tools = a.tools().empty() ? "" : "tools " + absl::StrJoin(a.tools(), ", ");
    if (!a.skills().empty()) {
      absl::StrAppend(&tools, tools.empty() ? "" : "; ", "skills ", absl::StrJoin(a.skills(), ", "));
    }
    if (!tools.empty()) {
      line.Add(TruncateToWidth(SanitizeForTerminal(tools), std::max(4, width - line.Width()),
                               g.ellipsis),
               selected ? style : Style{Role::kDim});
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace raw::tui
