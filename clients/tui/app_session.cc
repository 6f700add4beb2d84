// TuiApp: what the session controller reports (the connection, the open
// session, its history and events), shown in the transcript.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "clients/tui/app.h"
#include "clients/tui/text_width.h"
#include "common/version.h"

namespace raw::tui {

void TuiApp::AddError(const std::string& what, const absl::Status& status) {
  transcript_.AddInfoText(absl::StrCat(what, ": ", status.message()), Level::kError);
}

client::SessionController::Done TuiApp::ReportError(const std::string& what) {
  return [this, what](const absl::Status& status) {
    if (!status.ok()) AddError(what, status);
  };
}

void TuiApp::Fail(const absl::Status& status) {
  exit_message_ = std::string(status.message());
  exit_.status = status;
  quit_ = true;
}

std::string TuiApp::SessionCwd() const {
  const std::string& cwd = controller_.session().cwd();
  return cwd.empty() ? options_.cwd : cwd;
}

void TuiApp::OnConnected() {
  if (!options_.session_id.empty()) {
    controller_.OpenSession(options_.session_id);
  } else if (options_.pick_session) {
    ShowPicker();
  } else {
    controller_.CreateSession(options_.agent, options_.cwd);
  }
}

void TuiApp::OnConnectFailed(const absl::Status& status) { Fail(status); }

void TuiApp::OnDisconnected(const std::string& why) {
  transcript_.AddInfoText(
      absl::StrCat("Lost the connection to the daemon (", why, "); reconnecting", glyphs_.ellipsis),
      Level::kWarning);
}

void TuiApp::OnReconnectFailed(const absl::Status& status) {
  int wait = std::min(5, controller_.reconnect_attempts());
  SetStatus(absl::StrCat("Cannot reach the daemon: ", status.message()), absl::Seconds(wait));
}

void TuiApp::OnReconnected(const v1::GetDaemonInfoResponse& info, bool restarted,
                           uint64_t resumed_after) {
  status_.clear();
  transcript_.AddInfoText(absl::StrCat("Reconnected to the daemon (pid ", info.pid(), ")",
                                       restarted ? ", which was started again" : "",
                                       "; continuing from event ", resumed_after, "."));
}

void TuiApp::OnSessionOpenFailed(const absl::Status& status, bool creating) {
  if (controller_.has_session()) {
    AddError(creating ? "Cannot create a session" : "Cannot open the session", status);
    return;
  }
  Fail(creating ? absl::Status(status.code(),
                               absl::StrCat("cannot create a session: ", status.message()))
                : status);
}

void TuiApp::OnSessionOpened(const v1::Session& session, bool created) {
  session_gone_ = false;
  picker_.Close();
  agent_picker_.Close();
  approval_.Hide();
  transcript_.Clear();
  view_.ScrollToBottom();
  turn_started_ms_ = 0;
  editor_.SetHistory({});

  Style dim{Role::kDim};
  header_.clear();
  StyledLine title;
  title.Add("raw ", Style{Role::kAccent, kAttrBold});
  title.Add(kVersion, dim);
  // What the daemon reports, from the client that created the session (a
  // directory can be named anything): each on its line, sanitized.
  title.Add(absl::StrCat(created ? "  new session " : "  session ", SanitizeLine(session.id())),
            dim);
  header_.push_back(std::move(title));
  header_.emplace_back(
      absl::StrCat("agent ", SanitizeLine(session.agent()), ", model ",
                   SanitizeLine(session.model()),
                   session.model_id().empty() ? "" : " (" + SanitizeLine(session.model_id()) + ")",
                   ", in ", SanitizeLine(session.cwd())),
      dim);
  if (created) {
    header_.emplace_back(
        "Enter sends, Ctrl-J adds a line, Esc interrupts, /help lists keys and commands.", dim);
    transcript_.AddInfo(std::move(header_));
    header_.clear();
  }
}

void TuiApp::OnHistory(const absl::Status& status, const std::vector<v1::Event>& events,
                       bool initial) {
  if (!status.ok()) {
    AddError(initial ? "Cannot load the history" : "Cannot load older history", status);
    return;
  }
  transcript_.PrependHistory(events);
  editor_.SetHistory(transcript_.UserPrompts());
  if (!initial) return;
  if (controller_.activity().turn_running()) turn_started_ms_ = absl::ToUnixMillis(absl::Now());
  transcript_.AddInfo(std::move(header_));
  header_.clear();
}

void TuiApp::OnEvent(const v1::Event& event) {
  bool was_running = transcript_.turn_running();
  transcript_.Apply(event);
  if (!was_running && transcript_.turn_running()) turn_started_ms_ = event.time_unix_ms();
  if (event.has_turn_started() || event.has_turn_ended() || event.has_compaction_ended()) {
    interrupting_ = false;
  }
  if (event.has_turn_started()) {
    editor_.AddHistory(event.turn_started().user_text());
    view_.ScrollToBottom();
  }
}

void TuiApp::OnApprovalChanged() {
  if (std::optional<v1::ApprovalRequested> pending = controller_.pending_approval()) {
    approval_.Show(*pending);
  } else {
    approval_.Hide();
  }
}

void TuiApp::OnTurnAbandoned() {
  transcript_.AbandonOpenTurn();
  approval_.Hide();
}

void TuiApp::OnSessionGone(const absl::Status& status) {
  AddError("The event stream ended", status);
  // Deleted elsewhere: nothing will open it again; say what can be done.
  session_gone_ = true;
  transcript_.AddInfoText(
      "This session no longer exists: /new starts a session, /sessions opens another.",
      Level::kWarning);
}

}  // namespace raw::tui
