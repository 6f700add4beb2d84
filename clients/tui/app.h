// TuiApp: the terminal client's event loop and view.
//
// One thread (the UI thread) runs Run(): it polls the terminal, the
// UiQueue's wake fd (fed by the session controller's threads) and the
// signal pipe, applies what arrived to the models (transcript, editor,
// panels), and presents one frame after each batch (only changed rows reach
// the terminal). It never busy-waits: poll's timeout is the next deadline
// (an Escape to resolve, a running tool's clock, a reconnection attempt, a
// handover step).
//
// The session itself (the daemon connection and its recovery, history,
// events, the write lease and its handover, approvals, writes) is the
// curses-free client::SessionController's, shared with other front ends;
// the app is a view over it: it shows what the controller reports and
// turns keys into its requests.
//
// Implementation is spread over app*.cc by concern: the loop and frames
// (app.cc), what the controller reports (app_session.cc), how the write
// lease's changes are shown (app_lease.cc), keys (app_input.cc), slash commands
// (app_commands.cc) and the agents of /agent (app_agents.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "clients/lib/session_controller.h"
#include "clients/tui/agent_picker.h"
#include "clients/tui/approval_panel.h"
#include "clients/tui/curses_canvas.h"
#include "clients/tui/input_decoder.h"
#include "clients/tui/input_editor.h"
#include "clients/tui/palette.h"
#include "clients/tui/screen.h"
#include "clients/tui/session_picker.h"
#include "clients/tui/slash_commands.h"
#include "clients/tui/terminal.h"
#include "clients/tui/transcript.h"
#include "clients/tui/transcript_view.h"
#include "clients/tui/tui_options.h"
#include "clients/tui/ui_queue.h"

namespace raw::tui {

class TuiApp : private client::SessionController::Listener {
 public:
  TuiApp(TuiOptions options, Terminal& terminal);
  ~TuiApp();

  // Runs until the user quits (or a signal ends it); says how it ended.
  TuiExit Run();

  // The open session (empty when none); what to print on exit.
  const std::string& session_id() const { return controller_.session().id(); }
  // A message for stderr after the terminal is restored (a fatal error).
  const std::string& exit_message() const { return exit_message_; }

 private:
  // app.cc: loop, frames, timers.
  void Draw();
  int NextTimeoutMs() const;
  void HandleSignal(int sig);
  // Ctrl-Z or SIGTSTP: the terminal goes back to the shell until `fg`.
  void SuspendToShell();
  void ReadInput();
  void OnTick();
  void SetStatus(const std::string& text, absl::Duration for_how_long = absl::Seconds(4));
  StyledLine StatusLine(int width) const;

  // app_session.cc: what the controller reports, and opening sessions.
  void OnConnected() override;
  void OnConnectFailed(const absl::Status& status) override;
  void OnDisconnected(const std::string& why) override;
  void OnReconnectFailed(const absl::Status& status) override;
  void OnReconnected(const v1::GetDaemonInfoResponse& info, bool restarted,
                     uint64_t resumed_after) override;
  void OnSessionOpened(const v1::Session& session, bool created) override;
  void OnSessionOpenFailed(const absl::Status& status, bool creating) override;
  void OnHistory(const absl::Status& status, const std::vector<v1::Event>& events,
                 bool initial) override;
  void OnEvent(const v1::Event& event) override;
  void OnApprovalChanged() override;
  void OnTurnAbandoned() override;
  void OnSessionGone(const absl::Status& status) override;
  // A new session in the open one's directory (else the client's).
  std::string SessionCwd() const;
  void Fail(const absl::Status& status);
  void AddError(const std::string& what, const absl::Status& status);
  // Reports a write the controller refused at once or the daemon refused.
  client::SessionController::Done ReportError(const std::string& what);
  bool Busy() const { return controller_.activity().busy(); }
  // Another client writes; this one shows the session read-only.
  bool Following() const { return controller_.following(); }

  // app_lease.cc: what the write lease's changes look like here.
  void OnLeaseChange(client::SessionLease::Change change,
                     client::SessionLease::State before) override;
  // Ctrl-T while following: ask the holder to hand the session over.
  void RequestHandover();
  // The status line's text about a handover; empty when none is pending.
  std::string HandoverStatus(absl::Time now) const;
  // The writer's name for messages.
  std::string HolderName() const;

  // app_input.cc: keys, mouse, paste.
  void HandleInput(const InputEvent& event);
  void HandleEditorKey(const InputEvent& event);
  bool HandleScrollKey(const InputEvent& event);
  void Submit();
  void Interrupt();
  void AnswerApproval(const ApprovalPanel::Answer& answer);

  // app_commands.cc: slash commands.
  void RunCommand(const ParsedCommand& command);
  void ShowPicker();
  void ShowSessions();
  void ShowStats();
  void ShowHelp();
  void Compact();
  void ClearContext();
  // /image PATH: reads the image and keeps it for the next message; /image
  // alone drops the kept ones.
  void AttachImage(const std::string& path);

  // app_agents.cc: the agents of the daemon's config, for /agent.
  // Asks the daemon for its agents; with `pick`, opens the picker on them.
  void LoadAgents(bool pick);
  void HandleAgentPickerKey(const InputEvent& event);
  // The completion list under "/agent PREFIX": the matching agents.
  Lines AgentPopup(const std::string& text) const;
  std::vector<std::string> AgentNames() const;

  TuiOptions options_;
  Terminal& terminal_;
  const Glyphs& glyphs_;
  Palette palette_;
  CursesCanvas canvas_;
  Screen screen_;

  UiQueue ui_;
  // Declared after ui_, which it posts to: destroyed first.
  client::SessionController controller_;

  Transcript transcript_;
  TranscriptView view_;
  InputDecoder decoder_;
  InputEditor editor_;
  ApprovalPanel approval_;
  SessionPicker picker_;
  AgentPicker agent_picker_;
  std::vector<uint64_t> row_cells_;  // cell of each transcript row on screen
  int transcript_rows_ = 0;

  // An opened session's header, shown once its history is in.
  Lines header_;

  bool quit_ = false;
  // The open session was deleted (by another client): nothing opens it again.
  bool session_gone_ = false;
  TuiExit exit_;
  std::string exit_message_;
  std::optional<absl::Time> esc_deadline_;
  std::optional<absl::Time> ctrl_c_at_;
  std::string status_;
  absl::Time status_until_;
  int64_t turn_started_ms_ = 0;
  // An interrupt was sent and the turn or compaction has not ended yet.
  bool interrupting_ = false;
  // /image: sent with the next message, kept until the daemon accepts it.
  static constexpr size_t kMaxAttachedImages = 10;
  std::vector<v1::Image> attached_images_;
};

}  // namespace raw::tui
