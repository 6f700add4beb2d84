// TuiApp: keys, mouse and paste.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"

namespace raw::tui {

void TuiApp::HandleInput(const InputEvent& e) {
  if (picker_.open()) {
    switch (picker_.HandleKey(e, std::max(1, screen_.rows() - 5))) {
      case SessionPicker::Outcome::kChosen:
        if (const v1::Session* chosen = picker_.chosen()) {
          std::string id = chosen->id();
          picker_.Close();
          controller_.OpenSession(id);
        }
        break;
      case SessionPicker::Outcome::kCancelled:
        picker_.Close();
        if (!controller_.has_session()) quit_ = true;
        break;
      case SessionPicker::Outcome::kNone:
        break;
    }
    return;
  }
  if (agent_picker_.open()) {
    HandleAgentPickerKey(e);
    return;
  }
  if (controller_.KeyPressed(absl::Now())) return;
  if (HandleScrollKey(e)) return;
  if (e.key == Key::kClick) {
    int row = e.row;
    if (row >= 0 && row < static_cast<int>(row_cells_.size()) && row_cells_[row] != 0) {
      transcript_.ToggleExpanded(row_cells_[row]);
    }
    return;
  }
  if (e.key == Key::kCtrl) {
    switch (e.ctrl) {
      case 'c':
        if (Busy()) {
          Interrupt();
        } else if (!editor_.empty()) {
          editor_.SetText("");
        } else if (ctrl_c_at_) {
          quit_ = true;
        } else {
          ctrl_c_at_ = absl::Now();
          SetStatus("Press Ctrl-C again to quit", absl::Seconds(3));
        }
        return;
      case 'd':
        if (editor_.empty()) quit_ = true;
        else editor_.Delete();
        return;
      case 'o': {
        bool any_collapsed = false;
        for (const Cell& cell : transcript_.cells()) {
          if ((cell.kind == CellKind::kTool || cell.kind == CellKind::kReasoning) && !cell.expanded) {
            any_collapsed = true;
            break;
          }
        }
        transcript_.SetAllExpanded(any_collapsed);
        return;
      }
      case 't':
        RequestHandover();
        return;
      case 'l':
        screen_.Repaint();
        return;
      case 'z':
        SuspendToShell();
        return;
      default:
        break;
    }
  }
  if (approval_.visible() && !Following()) {
    bool handled = false;
    std::optional<ApprovalPanel::Answer> answer = approval_.HandleKey(e, absl::Now(), &handled);
    if (answer) AnswerApproval(*answer);
    if (handled) return;
    // Typed before the answers went live: text meant for the message box
    // is kept there, behind the panel.
    if (approval_.guarded() && (e.key == Key::kPaste || (e.key == Key::kChar && !e.alt))) {
      editor_.Insert(e.text);
      return;
    }
  }
  if (e.key == Key::kEscape) {
    if (Busy()) Interrupt();
    return;
  }
  if (approval_.visible()) return;  // the editor is hidden behind the panel
  HandleEditorKey(e);
}

bool TuiApp::HandleScrollKey(const InputEvent& e) {
  const int page = std::max(1, transcript_rows_ - 2);
  switch (e.key) {
    case Key::kPageUp: view_.ScrollBy(-page); return true;
    case Key::kPageDown: view_.ScrollBy(page); return true;
    case Key::kWheelUp: view_.ScrollBy(-3); return true;
    case Key::kWheelDown: view_.ScrollBy(3); return true;
    case Key::kUp:
    case Key::kDown:
      if (!e.ctrl_mod && !e.alt) return false;
      view_.ScrollBy(e.key == Key::kUp ? -1 : 1);
      return true;
    case Key::kHome:
    case Key::kEnd:
      if (!e.ctrl_mod && !e.alt) return false;
      if (e.key == Key::kHome) {
        view_.ScrollToTop();
      } else {
        view_.ScrollToBottom();
      }
      return true;
    default:
      return false;
  }
}

void TuiApp::HandleEditorKey(const InputEvent& e) {
  switch (e.key) {
    case Key::kChar:
      if (e.alt) {
        if (e.text == "b") editor_.WordLeft();
        if (e.text == "f") editor_.WordRight();
        return;
      }
      editor_.Insert(e.text);
      return;
    case Key::kPaste: editor_.Insert(e.text); return;
    case Key::kEnter: Submit(); return;
    case Key::kNewline: editor_.InsertNewline(); return;
    case Key::kBackspace: editor_.Backspace(); return;
    case Key::kDelete: editor_.Delete(); return;
    case Key::kLeft: e.ctrl_mod || e.alt ? editor_.WordLeft() : editor_.Left(); return;
    case Key::kRight: e.ctrl_mod || e.alt ? editor_.WordRight() : editor_.Right(); return;
    case Key::kHome: editor_.Home(); return;
    case Key::kEnd: editor_.End(); return;
    case Key::kUp: editor_.Up(); return;
    case Key::kDown: editor_.Down(); return;
    case Key::kTab:
      if (auto completed = CompleteCommand(editor_.text(), AgentNames())) {
        editor_.SetText(*completed);
      }
      return;
    case Key::kCtrl:
      switch (e.ctrl) {
        case 'a': editor_.Home(); return;
        case 'e': editor_.End(); return;
        case 'b': editor_.Left(); return;
        case 'f': editor_.Right(); return;
        case 'u': editor_.KillToStart(); return;
        case 'k': editor_.KillToEnd(); return;
        case 'w': editor_.DeleteWordBack(); return;
        case 'p': editor_.Up(); return;
        case 'n': editor_.Down(); return;
        default: return;
      }
    default:
      return;
  }
}

void TuiApp::Submit() {
  std::string text = editor_.text();
  if (absl::StripAsciiWhitespace(text).empty()) return;
  CommandParse parse = ParseCommand(text);
  if (parse.command || !parse.error.empty()) {
    editor_.Take();
    if (!parse.error.empty()) {
      transcript_.AddInfoText(parse.error, Level::kError);
    } else {
      RunCommand(*parse.command);
    }
    view_.ScrollToBottom();
    return;
  }
  if (text.rfind("//", 0) == 0) text = text.substr(1);
  if (session_gone_) {
    SetStatus("This session no longer exists: /new starts a session; the message is kept");
    return;
  }
  if (!controller_.has_session() || !controller_.connected()) {
    SetStatus("Not connected to the daemon yet; the message is kept");
    return;
  }
  if (Following()) {
    SetStatus("Read-only: Ctrl-T asks for this session; the message is kept");
    return;
  }
  if (!controller_.can_write()) {
    SetStatus("Waiting for the write lease; the message is kept");
    return;
  }
  if (Busy()) {
    SetStatus("The agent is still working: wait, or press Esc to interrupt; the message is kept");
    return;
  }
  editor_.Take();
  view_.ScrollToBottom();
  // The attached images stay attached until the daemon accepts the turn.
  absl::Status sent = controller_.StartTurn(
      text,
      [this, text, images = attached_images_.size()](const absl::Status& status) {
        if (status.ok()) {
          attached_images_.erase(attached_images_.begin(),
                                 attached_images_.begin() + static_cast<ptrdiff_t>(std::min(
                                                                images, attached_images_.size())));
          return;
        }
        AddError("The message was not sent", status);
        if (editor_.empty()) editor_.SetText(text);
      },
      attached_images_);
  if (!sent.ok()) {
    AddError("The message was not sent", sent);
    editor_.SetText(text);
  }
}

void TuiApp::Interrupt() {
  if (!controller_.can_write()) {
    SetStatus("Read-only: only the client holding the session can interrupt");
    return;
  }
  interrupting_ = true;  // shown until the turn or compaction ends (StatusLine)
  if (absl::Status s = controller_.Interrupt(ReportError("Cannot interrupt")); !s.ok()) {
    interrupting_ = false;
    AddError("Cannot interrupt", s);
  }
}

void TuiApp::AnswerApproval(const ApprovalPanel::Answer& answer) {
  // The panel hides when the controller reports the answer on its way
  // (OnApprovalChanged), and shows again if the daemon refuses it.
  absl::Status s = controller_.AnswerApproval(
      approval_.request_id(), answer.decision, answer.message, [this](const absl::Status& status) {
        // NOT_FOUND: resolved meanwhile (a timeout); its resolution shows it.
        if (!status.ok() && !absl::IsNotFound(status)) {
          AddError("The approval answer was not accepted", status);
        }
      },
      answer.session_rule);
  if (!s.ok()) AddError("The approval answer was not accepted", s);
}

}  // namespace raw::tui
