#include "clients/tui/approval_panel.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/present/approval_text.h"
#include "clients/present/terminal_text.h"
#include "clients/present/tool_text.h"
#include "clients/tui/text_width.h"
#include "clients/tui/tool_card_renderer.h"

namespace raw::tui {
namespace {

// Rows the body always gets (the fold marker, when nothing else fits).
constexpr int kMinBodyRows = 1;

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
  viewing_all_ = false;
  scroll_ = 0;
  shown_ = false;
  live_ = false;
}

void ApprovalPanel::BeforeFrame(absl::Time now, bool with_answers) {
  if (!request_ || !with_answers) {
    shown_ = false;
    live_ = false;
    return;
  }
  if (!shown_) {
    shown_ = true;
    guard_until_ = now + guard_;
  }
  if (now >= guard_until_) live_ = true;
}

std::optional<absl::Time> ApprovalPanel::guard_end() const {
  if (!request_ || live_ || !shown_) return std::nullopt;
  return guard_until_;
}

std::vector<ApprovalPanel::Option> ApprovalPanel::Options() const {
  std::vector<Option> options;
  options.push_back({"y", "Allow once", v1::APPROVAL_DECISION_ALLOW_ONCE, 0});
  int session = request_ ? present::SessionOptionCount(*request_) : 0;
  if (session > 1) {
    options.push_back({"a", "Allow exactly for this session", v1::APPROVAL_DECISION_ALLOW_SESSION, 0});
    options.push_back(
        {"p", "Allow the programs for this session", v1::APPROVAL_DECISION_ALLOW_SESSION, 1});
  } else {
    options.push_back({"a", "Allow for this session", v1::APPROVAL_DECISION_ALLOW_SESSION, 0});
  }
  options.push_back({"n", "Deny", v1::APPROVAL_DECISION_DENY, 0});
  options.push_back({"m", "Deny with a message", v1::APPROVAL_DECISION_DENY, 0});
  return options;
}

std::optional<ApprovalPanel::Answer> ApprovalPanel::HandleKey(const InputEvent& e, absl::Time now,
                                                              bool* handled) {
  *handled = true;
  if (e.key == Key::kPaste && live_ && !entering_message_) {
    // A paste is text meant for the message box, often followed by an
    // Enter: it hides the answers until a frame at the guard's end, so that
    // nothing in the same read (or typed on within the guard) answers.
    live_ = false;
    guard_until_ = now + guard_;
  }
  if (!live_) {
    // Typed before the answers went live: meant for something else.
    if (shown_) guard_until_ = std::max(guard_until_, now + guard_);
    if (e.key == Key::kEscape || e.key == Key::kPaste || (e.key == Key::kChar && !e.alt)) {
      *handled = false;
    }
    return std::nullopt;
  }
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
  const std::vector<Option> options = Options();
  const int count = static_cast<int>(options.size());
  auto choose = [&](int option) -> std::optional<Answer> {
    selected_ = option;
    if (options[static_cast<size_t>(option)].key == "m") {
      entering_message_ = true;
      return std::nullopt;
    }
    const Option& chosen = options[static_cast<size_t>(option)];
    return Answer{chosen.decision, "", chosen.session_rule};
  };
  if (e.key == Key::kChar && !e.alt) {
    if (e.text == "v" || e.text == "V") {
      viewing_all_ = !viewing_all_;
      scroll_ = 0;
      return std::nullopt;
    }
    for (int i = 0; i < count; ++i) {
      const std::string& key = options[static_cast<size_t>(i)].key;
      if (e.text == key || e.text == absl::AsciiStrToUpper(key)) return choose(i);
    }
  }
  switch (e.key) {
    case Key::kUp:
      if (!viewing_all_) break;
      scroll_ = std::max(0, scroll_ - 1);
      return std::nullopt;
    case Key::kDown:
      if (!viewing_all_) break;
      scroll_ = std::min(scroll_ + 1, max_scroll_);
      return std::nullopt;
    case Key::kLeft: case Key::kBackTab:
      selected_ = (selected_ + count - 1) % count;
      return std::nullopt;
    case Key::kRight: case Key::kTab:
      selected_ = (selected_ + 1) % count;
      return std::nullopt;
    case Key::kEnter:
      return choose(std::min(selected_, count - 1));
    default:
      break;
  }
  *handled = false;
  return std::nullopt;
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
  const StyledLine indent("      ");
  // A row that continues a wrapped one carries the continuation glyph in
  // column 4, where every row of its own (an argument, a line of a value)
  // has a space: a value cannot wrap into what reads as a new argument.
  auto continued = [&](int text_column) {
    StyledLine line("    ");
    line.Add(g.continuation, dim);
    line.Add(std::string(static_cast<size_t>(std::max(1, text_column - line.Width())), ' '));
    return line;
  };
  for (const v1::ApprovalCall& call : request_->calls()) {
    StyledLine head;
    head.Add(absl::StrCat(" ", index++, ". "));
    // The name is the model's choice when the tool is unknown: one line.
    head.Add(SanitizeForTerminal(
                 present::ShowLineBreaks(call.tool().empty() ? call.name() : call.tool())),
             Style{Role::kDefault, kAttrBold});
    Role role = call.state() == v1::APPROVAL_STATE_PENDING  ? Role::kWaiting
                : call.state() == v1::APPROVAL_STATE_ALLOWED ? Role::kOk
                                                             : Role::kError;
    head.Add("  ");
    head.Add(StateWords(call.state()), Style{role});
    if (!call.reason().empty()) {
      head.Add(": " + SanitizeForTerminal(
                          present::ShowBlankRuns(present::ShowLineBreaks(call.reason()))),
               dim);
    }
    for (auto& l : WrapSpans(head, width, StyledLine(), continued(6))) body.push_back(std::move(l));
    // Every argument in full: each line of a value on a row of its own, long
    // ones broken at the width (exact text: no spaces dropped), long runs of
    // blanks shown (present::ShowBlankRuns).
    for (const std::string& arg : present::ArgumentLines(call.arguments())) {
      std::string text = SanitizeForTerminal(present::ShowBlankRuns(arg));
      bool first = true;
      for (absl::string_view line : absl::StrSplit(text, '\n')) {
        StyledLine styled(std::string(line), Style{Role::kCode});
        for (auto& l : HardWrap(styled, width, first ? indent : StyledLine("        "),
                                continued(first ? 6 : 8))) {
          body.push_back(std::move(l));
        }
        first = false;
      }
    }
    if (call.state() != v1::APPROVAL_STATE_PENDING || read_only) continue;
    for (int i = 0; i < call.session_rules_size() && i < 2; ++i) {
      for (const std::string& added : call.session_rules(i).rules()) {
        StyledLine line;
        line.Add(absl::StrCat("[", present::SessionOptionKey(i), "] for this session adds: "), dim);
        line.Add(SanitizeForTerminal(present::ShowBlankRuns(present::ShowLineBreaks(added))), dim);
        // The rule is exact text: wrapped at its spaces, none of them dropped.
        for (auto& l : WrapSpans(line, width, indent, continued(10), SpacesAtBreaks::kKeep)) {
          body.push_back(std::move(l));
        }
      }
    }
  }

  StyledLine options;
  if (read_only) {
    options.Add("Waiting for the client that holds this session to answer.", dim);
  } else if (!live_) {
    options.Add(
        "Read the request: the answers appear in a moment (what you type now stays in the "
        "message box)",
        dim);
  } else if (entering_message_) {
    StyledLine prompt("Message for the model: ", Style{Role::kAccent, kAttrBold});
    InputEditor::View edit = message_.Render(width, prompt, 1);
    options = edit.lines.empty() ? prompt : edit.lines[0];
    view.cursor = CursorPos{0, edit.cursor_col};  // row fixed below
  } else {
    const std::vector<Option> offered = Options();
    for (int i = 0; i < static_cast<int>(offered.size()); ++i) {
      Style style = i == selected_ ? Style{Role::kSelected, kAttrBold} : Style{};
      const Option& option = offered[static_cast<size_t>(i)];
      options.Add(absl::StrCat("[", option.key, "] ", option.label), style);
      options.Add("  ");
    }
  }
  Lines option_lines = WrapSpans(options, width);

  // Title, as much of the body as fits, the options. What does not fit is
  // folded behind a marker row that is always shown.
  int room = std::max(kMinBodyRows, max_rows - 1 - static_cast<int>(option_lines.size()));
  view.lines.push_back(std::move(title));
  const int total = static_cast<int>(body.size());
  if (total > room) {
    int rows = std::max(0, room - 1);  // the marker takes one
    max_scroll_ = std::max(0, total - rows);
    int first = viewing_all_ ? std::clamp(scroll_, 0, total - rows) : 0;
    size_t hidden_bytes = 0;
    for (int i = 0; i < total; ++i) {
      if (i < first || i >= first + rows) hidden_bytes += body[static_cast<size_t>(i)].PlainText().size();
    }
    Lines shown(body.begin() + first, body.begin() + first + rows);
    body = std::move(shown);
    std::string marker =
        viewing_all_
            ? absl::StrCat("lines ", first + 1, "-", first + rows, " of ", total,
                           " (Up/Down scroll, v folds)")
            : absl::StrCat(g.ellipsis, " ", total - rows, " more lines (", hidden_bytes,
                           " bytes) - press v to view all");
    body.emplace_back(TruncateToWidth(marker, width, g.ellipsis), Style{Role::kWaiting, kAttrBold});
  }
  for (auto& l : body) view.lines.push_back(std::move(l));
  if (view.cursor) view.cursor->row = static_cast<int>(view.lines.size());
  for (auto& l : option_lines) view.lines.push_back(std::move(l));
  return view;
}

}  // namespace raw::tui
