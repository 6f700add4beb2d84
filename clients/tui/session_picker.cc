#include "clients/tui/session_picker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/present/text.h"
#include "clients/present/usage_text.h"
#include "clients/tui/footer.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

// "expires in 29 days", "expires now" (removed at the next purge), "no expiry".
std::string ExpiryLabel(int64_t expires_at_unix_ms, int64_t now_unix_ms) {
  std::string when = present::FormatExpiry(expires_at_unix_ms, now_unix_ms);
  if (when == "never") return "no expiry";
  if (when == "due") return "expires now";
  return absl::StrCat("expires ", when);
}

}  // namespace

void SessionPicker::Open(std::vector<v1::Session> sessions, int64_t now_unix_ms) {
  sessions_ = std::move(sessions);
  now_unix_ms_ = now_unix_ms;
  selected_ = 0;
  open_ = true;
}

const v1::Session* SessionPicker::chosen() const {
  if (sessions_.empty()) return nullptr;
  return &sessions_[static_cast<size_t>(selected_)];
}

SessionPicker::Outcome SessionPicker::HandleKey(const InputEvent& e, int page_rows) {
  const int last = static_cast<int>(sessions_.size()) - 1;
  switch (e.key) {
    case Key::kUp: selected_ = std::max(0, selected_ - 1); break;
    case Key::kDown: selected_ = std::min(std::max(last, 0), selected_ + 1); break;
    case Key::kPageUp: selected_ = std::max(0, selected_ - page_rows); break;
    case Key::kPageDown: selected_ = std::min(std::max(last, 0), selected_ + page_rows); break;
    case Key::kHome: selected_ = 0; break;
    case Key::kEnd: selected_ = std::max(last, 0); break;
    case Key::kWheelUp: selected_ = std::max(0, selected_ - 1); break;
    case Key::kWheelDown: selected_ = std::min(std::max(last, 0), selected_ + 1); break;
    case Key::kEnter: return sessions_.empty() ? Outcome::kNone : Outcome::kChosen;
    case Key::kEscape: return Outcome::kCancelled;
    case Key::kCtrl:
      if (e.ctrl == 'c' || e.ctrl == 'd') return Outcome::kCancelled;
      if (e.ctrl == 'p') selected_ = std::max(0, selected_ - 1);
      if (e.ctrl == 'n') selected_ = std::min(std::max(last, 0), selected_ + 1);
      break;
    default: break;
  }
  return Outcome::kNone;
}

Lines SessionPicker::Render(int width, int rows, const Glyphs& g) const {
  Lines out;
  out.emplace_back("Resume a session", Style{Role::kAccent, kAttrBold});
  out.emplace_back("Up/Down to choose, Enter to open, Esc to cancel", Style{Role::kDim});
  out.emplace_back();
  if (sessions_.empty()) {
    out.emplace_back("No sessions yet.", Style{Role::kDim});
    return out;
  }
  const int list_rows = std::max(1, rows - static_cast<int>(out.size()));
  int first = std::clamp(selected_ - list_rows / 2, 0,
                         std::max(0, static_cast<int>(sessions_.size()) - list_rows));
  for (int i = first; i < static_cast<int>(sessions_.size()) && i < first + list_rows; ++i) {
    const v1::Session& s = sessions_[static_cast<size_t>(i)];
    bool selected = i == selected_;
    std::string title = s.title().empty() ? "(no messages yet)" : present::OneLine(s.title());
    std::string text = absl::StrFormat(
        "%s %-8s  %-12s  %-16s  %-18s  ", selected ? g.prompt : " ", present::ShortSessionId(s.id()),
        s.agent(), present::FormatLocalTime(s.last_activity_unix_ms()),
        ExpiryLabel(s.expires_at_unix_ms(), now_unix_ms_));
    StyledLine line;
    Style style = selected ? Style{Role::kSelected, kAttrBold} : Style{};
    line.Add(SanitizeForTerminal(text), style);
    line.Add(TruncateToWidth(SanitizeForTerminal(title), std::max(4, width - DisplayWidth(text)),
                             g.ellipsis),
             selected ? style : Style{Role::kDim});
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace raw::tui
