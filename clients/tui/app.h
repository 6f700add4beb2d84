// TuiApp: the terminal client's event loop and state.
//
// One thread (the UI thread) runs Run(): it polls the terminal, the
// UiQueue's wake fd (fed by the subscription, lease and worker threads) and
// the signal pipe, applies what arrived to the models (transcript, editor,
// panels), and presents one frame after each batch (only changed rows reach
// the terminal). It never busy-waits: poll's timeout is the next deadline
// (an Escape to resolve, a running tool's clock, a reconnection attempt).
//
// The daemon is reached only through the Worker (unary calls), the
// Subscription (events) and the curses-free client::SessionLease (the
// write lease and its handover rule, shared with other front ends). The
// app holds no business logic: it shows events and sends the user's
// requests.
//
// Implementation is spread over app*.cc by concern: the loop and frames
// (app.cc), the session and its connection (app_session.cc), how the write
// lease's changes are shown (app_lease.cc), keys (app_input.cc), slash commands
// (app_commands.cc) and the agents of /agent (app_agents.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "clients/lib/session_lease.h"
#include "clients/lib/raw_client.h"
#include "clients/tui/agent_picker.h"
#include "clients/tui/approval_panel.h"
#include "clients/tui/curses_canvas.h"
#include "clients/tui/input_decoder.h"
#include "clients/tui/input_editor.h"
#include "clients/tui/palette.h"
#include "clients/tui/screen.h"
#include "clients/tui/session_picker.h"
#include "clients/tui/slash_commands.h"
#include "clients/tui/subscription.h"
#include "clients/tui/terminal.h"
#include "clients/tui/transcript.h"
#include "clients/tui/transcript_view.h"
#include "clients/tui/tui_options.h"
#include "clients/tui/ui_queue.h"
#include "clients/tui/worker.h"

namespace raw::tui {

class TuiApp : private client::SessionLease::Listener {
 public:
  TuiApp(TuiOptions options, Terminal& terminal);
  ~TuiApp();

  // Runs until the user quits (or a signal ends it); says how it ended.
  TuiExit Run();

  // The open session (empty when none); what to print on exit.
  const std::string& session_id() const { return session_.id(); }
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

  // app_session.cc and app_lease.cc: connection, session, history, lease.
  void StartConnect();
  void OnConnected(absl::StatusOr<client::RawClient> client);
  void OpenInitial();
  void CreateSession(const std::string& agent, const std::string& cwd);
  void LoadSession(const std::string& id);
  void OpenSession(const v1::Session& session, bool created);
  void OnInitialHistory(const v1::GetHistoryResponse& page);
  void LoadOlderHistory();
  void StartSubscription(uint64_t after_seq);
  void OnEvent(const v1::Event& event);
  void OnStreamEnd(const absl::Status& status);
  void OnDisconnected(const std::string& why);
  // app_lease.cc: what the write lease's changes (client::SessionLease)
  // look like here.
  void OnLeaseChange(client::SessionLease::Change change,
                     client::SessionLease::State before) override;
  // Ctrl-T while following: ask the holder to hand the session over.
  void RequestHandover();
  // The status line's text about a handover; empty when none is pending.
  std::string HandoverStatus(absl::Time now) const;
  // The writer's name for messages.
  std::string HolderName() const;
  void RefreshSession();
  void Fail(const absl::Status& status);
  bool CanWrite() const;
  // Another client writes; this one shows the session read-only.
  bool Following() const { return lease_.following(); }
  void AddError(const std::string& what, const absl::Status& status);

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
  std::shared_ptr<client::RawClient> client_;
  // Declared after ui_: destroyed first, so nothing posts to a dead queue.
  Worker worker_;
  std::unique_ptr<Subscription> subscription_;
  // The write lease and its handover; declared after ui_ and worker_,
  // which it posts to.
  client::SessionLease lease_;

  Transcript transcript_;
  TranscriptView view_;
  InputDecoder decoder_;
  InputEditor editor_;
  ApprovalPanel approval_;
  SessionPicker picker_;
  AgentPicker agent_picker_;
  std::vector<v1::AgentInfo> agents_;  // as last listed; for completion
  std::vector<uint64_t> row_cells_;  // cell of each transcript row on screen
  int transcript_rows_ = 0;

  v1::Session session_;
  std::optional<double> cache_ratio_;
  std::string answered_request_;  // sent; hidden until its resolution arrives

  std::string older_cursor_;
  bool history_loading_ = false;
  bool history_done_ = true;

  bool connected_ = false;
  bool reconnecting_ = false;
  int reconnect_attempts_ = 0;
  bool check_turn_ = false;  // after reconnecting: is the open turn still running?
  std::optional<absl::Time> reconnect_at_;

  bool quit_ = false;
  TuiExit exit_;
  std::string exit_message_;
  std::optional<absl::Time> esc_deadline_;
  std::optional<absl::Time> ctrl_c_at_;
  std::string status_;
  absl::Time status_until_;
  int64_t turn_started_ms_ = 0;
};

}  // namespace raw::tui
