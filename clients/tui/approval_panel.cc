#include "clients/tui/approval_panel.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "clients/present/tool_text.h"
#include "clients/tui/text_width.h"
#include "clients/tui/tool_card_renderer.h"

namespace raw::tui {
namespace {

struct Option {
  const char* key;
  const char* label;
  v1::ApprovalDecision decision;
};

constexpr Option kOptions[] = {
    {"y", "Allow once", v1::APPROVAL_DECISION_ALLOW_ONCE},
    {"a", "Allow for this session", v1::APPROVAL_DECISION_ALLOW_SESSION},
    {"n", "Deny", v1::APPROVAL_DECISION_DENY},
    {"m", "Deny with a message", v1::APPROVAL_DECISION_DENY},
};
constexpr int kOptionCount = 4;
constexpr int kMaxArgumentLines = 6;

const char* StateWords(v1::ApprovalState state) {
  switch (state) {
    case v1::APPROVAL_STATE_PENDING: return "needs approval";
    case v1::APPROVAL_STATE_ALLOWED: return "allowed";
    case v1::APPROVAL_STATE_DENIED: return "denied";
    case v1::APPROVAL_STATE_NOT_APPLICABLE: return "not run (invalid)";
    default: return "unknown";
  }
}

}  // namespace

const std::string& ApprovalPanel::request_id() const {
  static const std::string kNone;
  return request_ ? request_->request_id() : kNone;
}

void ApprovalPanel::Show(const v1::ApprovalRequested& request) {
  if (request_ && request_->request_id() == request.request_id()) return;
  request_ = request;
  selected_ = 0;
  entering_message_ = false;
  message_.SetText("");
}

std::optional<ApprovalPanel::Answer> ApprovalPanel::HandleKey(const InputEvent& e, bool* handled) {
  *handled = true;
  if (entering_message_) {
    switch (e.key) {
      case Key::kEnter:
        entering_message_ = false;
        return Answer{v1::APPROVAL_DECISION_DENY, message_.Take()};
      case Key::kEscape:
        entering_message_ = false;
        return std::nullopt;
      case Key::kChar: message_.Insert(e.text); return std::nullopt;
      case Key::kPaste: message_.Insert(e.text); return std::nullopt;
      case Key::kBackspace: message_.Backspace(); return std::nullopt;
      case Key::kDelete: message_.Delete(); return std::nullopt;
      case Key::kLeft: message_.Left(); return std::nullopt;
      case Key::kRight: message_.Right(); return std::nullopt;
      case Key::kHome: message_.Home(); return std::nullopt;
      case Key::kEnd: message_.End(); return std::nullopt;
      default: *handled = false; return std::nullopt;
    }
  }
  auto choose = [&](int option) -> std::optional<Answer> {
    selected_ = option;
    if (option == 3) {
      entering_message_ = true;
      return std::nullopt;
    }
    return Answer{kOptions[option].decision, ""};
  };
  if (e.key == Key::kChar && !e.alt) {
    for (int i = 0; i < kOptionCount; ++i) {
      if (e.text == kOptions[i].key || e.text == absl::AsciiStrToUpper(kOptions[i].key)) {
        return choose(i);
      }
    }
  }
  switch (e.key) {
    case Key::kLeft: case Key::kBackTab:
      selected_ = (selected_ + kOptionCount - 1) % kOptionCount;
      return std::nullopt;
    case Key::kRight: case Key::kTab:
      selected_ = (selected_ + 1) % kOptionCount;
      return std::nullopt;
    case Key::kEnter:
      return choose(selected_);
    default:
      *handled = false;
      return std::nullopt;
  }
}

ApprovalPanel::View ApprovalPanel::Render(int width, int max_rows, const Glyphs& g,
                                          bool read_only) const {
  View view;
  if (!request_) return view;
  Style dim{Role::kDim};
  StyledLine title;
  title.Add(g.rule + " ", Style{Role::kBorder});
  title.Add("Approval needed", Style{Role::kWaiting, kAttrBold});
  title.Add(" ");
  int rule = std::max(0, width - title.Width());
  std::string fill;
  for (int i = 0; i < rule; ++i) fill += g.rule;
  title.Add(fill, Style{Role::kBorder});

  Lines body;
  int n = request_->calls_size();
  body.emplace_back(absl::StrCat("The agent wants to run ", n, n == 1 ? " tool call:" : " tool calls:"));
  int index = 1;
  for (const v1::ApprovalCall& call : request_->calls()) {
    StyledLine head;
    head.Add(absl::StrCat(" ", index++, ". "));
    head.Add(SanitizeForTerminal(call.tool().empty() ? call.name() : call.tool()), Style{Role::kDefault, kAttrBold});
    Role role = call.state() == v1::APPROVAL_STATE_PENDING  ? Role::kWaiting
                : call.state() == v1::APPROVAL_STATE_ALLOWED ? Role::kOk
                                                             : Role::kError;
    head.Add("  ");
    head.Add(StateWords(call.state()), Style{role});
    if (!call.reason().empty()) head.Add(": " + SanitizeForTerminal(call.reason()), dim);
    for (auto& l : WrapSpans(head, width, StyledLine(), StyledLine("      "))) body.push_back(std::move(l));
    std::vector<std::string> args = present::ArgumentLines(call.arguments());
    int shown = 0;
    for (const std::string& arg : args) {
      if (shown == kMaxArgumentLines) {
        body.emplace_back(absl::StrCat("      ", g.ellipsis, " ", args.size() - kMaxArgumentLines,
                                       " more"), dim);
        break;
      }
      std::string text = SanitizeForTerminal(arg);
      // Multi-line values (scripts, file contents) show their first lines.
      size_t nl = text.find('\n');
      if (nl != std::string::npos) text = text.substr(0, nl) + " " + g.ellipsis;
      body.emplace_back(TruncateToWidth("      " + text, width, g.ellipsis), Style{Role::kCode});
      ++shown;
    }
  }

  StyledLine options;
  if (read_only) {
    options.Add("Waiting for the client that holds this session to answer.", dim);
  } else if (entering_message_) {
    StyledLine prompt("Message for the model: ", Style{Role::kAccent, kAttrBold});
    InputEditor::View edit = message_.Render(width, prompt, 1);
    options = edit.lines.empty() ? prompt : edit.lines[0];
    view.cursor = CursorPos{0, edit.cursor_col};  // row fixed below
  } else {
    for (int i = 0; i < kOptionCount; ++i) {
      Style style = i == selected_ ? Style{Role::kSelected, kAttrBold} : Style{};
      options.Add(absl::StrCat("[", kOptions[i].key, "] ", kOptions[i].label), style);
      options.Add("  ");
    }
  }
  Lines option_lines = WrapSpans(options, width);

  // Title, as much of the body as fits, the options.
  int room = std::max(1, max_rows - 1 - static_cast<int>(option_lines.size()));
  view.lines.push_back(std::move(title));
  if (static_cast<int>(body.size()) > room) {
    body.resize(static_cast<size_t>(std::max(0, room - 1)));
    body.emplace_back(absl::StrCat("  ", g.ellipsis, " (Ctrl-O in the transcript shows every call)"), dim);
  }
  for (auto& l : body) view.lines.push_back(std::move(l));
  if (view.cursor) view.cursor->row = static_cast<int>(view.lines.size());
  for (auto& l : option_lines) view.lines.push_back(std::move(l));
  return view;
}

}  // namespace raw::tui
