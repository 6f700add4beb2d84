// SessionBridge: one ACP session on one Raw session. It is a view over a
// SessionController (clients/lib), which connects to rawd, follows the
// session's events across daemon restarts and holds its write lease while
// the ACP session is open; the bridge turns those events into
// session/update notifications, prompts into turns, approvals into
// permission requests, and the turn's end into the prompt's answer.
//
// Opening: kCreated and kResume open the session and answer once the
// lease is settled (held, or another client holds it); kLoad first reads
// the whole display history and sends it as updates (UpdateMapper::Replay)
// before answering. Live events that arrive meanwhile wait for the replay.
//
// A prompt's turn (or /compact) is the operation of the id its start
// chose (StartTurnRequest.turn_id, CompactRequest.operation_id, which the
// controller returns as it sends the start): only that operation's events
// are the prompt's (its approvals become permission requests, its end
// answers the prompt). They are recognised as they come, also before rawd
// answers the start (it does once the operation is prepared and started,
// and its first events may come first): the reply's first chunk never
// waits for that answer, and an operation whose end comes first (a
// compaction with nothing to compact records nothing else) still answers
// its prompt. Nothing is held back for the answer.
//
// A prompt needs the lease. While following, the bridge does not know
// whether the holder it last heard of still holds it (rawd tells followers
// nothing when a holder lets go): it asks for a handover first and holds
// the prompt until rawd answers. Granted (the lease was free), the turn
// starts; otherwise the prompt is refused with an error naming the holder
// rawd named, which has been asked to hand the session over. Granted, but
// the prompt's turn does not start (another client's turn still runs), the
// bridge gives the lease back and follows again. When the lease
// is granted again, what this bridge chose under its last lease is chosen
// again (the approval mode, the client's MCP servers) before a prompt's turn
// starts. One prompt at a time. Every update of a turn
// is sent before the prompt's answer (one transport, one thread).
//
// Slash commands (available_commands_update): /compact, /clear, /stats
// and /agent [NAME] run the matching daemon call instead of a turn; a
// cancelled one answers `cancelled` like a turn.
//
// Lifetime: the connection may destroy a bridge at any time between tasks
// (session/close, a cancelled open). Callbacks that can run after that are
// either the controller's, which it drops with itself, or check alive_.
//
// Threading: the event loop's thread only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "clients/acp/daemon_calls.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/json_rpc.h"
#include "clients/acp/prompt_text.h"
#include "clients/acp/update_mapper.h"
#include "clients/lib/session_controller.h"
#include "common/json.h"

namespace raw::acp {

// What a bridge needs from its connection.
struct BridgeContext {
  JsonRpc* rpc = nullptr;
  DaemonCalls* calls = nullptr;
  EventLoop* loop = nullptr;
  client::ConnectOptions connect;
  client::SessionLease::Identity identity;
  // The client accepts the newer update kinds (usage_update,
  // session_info_update).
  bool newer_updates = false;
  // Called (on the loop's thread, from within the bridge's own callback)
  // when rawd says the open session is gone (deleted): the connection lets
  // go of the bridge, and later requests for the session get -32002.
  std::function<void(const std::string& session_id)> session_gone;
  // Called on the loop's thread with the session as rawd describes it now:
  // the connection tells the client its agent, model and mode (a
  // config_option_update, and a current_mode_update when the mode is not
  // the one it was last told), then calls `done`.
  std::function<void(const v1::Session& session, std::function<void()> done)> tell_setup;
  // Called on the loop's thread with rawd's answer when a slash command
  // (/agent NAME) configured the session: the connection tells the client
  // what changed as it does for session/set_config_option (a
  // config_option_update, and a current_mode_update when the mode in force
  // is not the one it was last told), before the command's answer.
  std::function<void(const std::string& session_id, const v1::ConfigureSessionResponse& response)>
      configured;
};

// How long Shutdown waits for rawd to take a turn's interrupt.
inline constexpr absl::Duration kShutdownWait = absl::Seconds(5);
// How long a prompt sent while following waits for rawd's answer to the
// handover request it makes.
inline constexpr absl::Duration kLeaseAnswerWait = absl::Seconds(5);

class SessionBridge : private client::SessionController::Listener, public Ticker {
 public:
  enum class Open { kCreated, kLoad, kResume };
  using Opened = std::function<void(const absl::Status&)>;

  // Starts opening `session_id`; `opened` follows once (OK, or why not).
  SessionBridge(BridgeContext context, std::string session_id, Open how, Opened opened);
  ~SessionBridge() override;

  const std::string& id() const { return id_; }
  const v1::Session& session() const { return controller_->session(); }
  // Reads the session's record again (after a change by the connection).
  void Refresh() { controller_->RefreshSession(); }
  // The lease id writes carry; empty without the lease.
  std::string lease_id() const;
  // The approval mode this connection chose for the session ("" = none:
  // the agent's own). rawd keeps a chosen mode only while the lease that
  // chose it holds the session, so the bridge chooses it again when it
  // takes the lease back (a reconnection, a handover back).
  const std::string& approval_mode() const { return approval_mode_; }
  void set_approval_mode(std::string mode) { approval_mode_ = std::move(mode); }
  // The mode the client was last told (in configOptions or a
  // current_mode_update); "" before the first. A mode update is sent only
  // when the mode differs from it.
  const std::string& told_mode() const { return told_mode_; }
  void set_told_mode(std::string mode) { told_mode_ = std::move(mode); }
  // Why a write cannot be made now (OK when it can); asks for a handover
  // when another client holds the lease.
  absl::Status CheckWrite();
  // This bridge holds the lease now (no handover is asked for).
  bool can_write() const { return controller_->can_write(); }
  // The client's MCP servers for the session, opened while another client
  // holds the lease: they become the session's own (SetSessionMcpServers)
  // once this bridge is granted the lease; a prompt sent meanwhile starts
  // its turn only after that.
  void SetMcpServersWhenWriting(std::vector<v1::SessionMcpServer> servers);

  // The open failed (its `opened` had an error): the bridge serves nothing
  // and waits to be dropped.
  bool open_failed() const { return open_failed_; }
  // A prompt of this bridge waits for its answer.
  bool prompting() const { return turn_.has_value(); }

  // session/prompt (id and params).
  void Prompt(const Json& id, const Json& params);
  // The prompt request `id` is this bridge's running one.
  bool HasPrompt(const Json& id) const;
  // session/cancel.
  void Cancel();
  // Interrupts a turn this bridge started (its prompt answers cancelled);
  // `done` once the daemon took the interrupt (or at once), or after
  // kShutdownWait without its answer: a slow or stopped rawd does not hold
  // up a close, and releasing the lease interrupts the turn as well
  // (Identity::interrupt_on_release).
  void Shutdown(std::function<void()> done);

  void Tick(absl::Time now) override;
  std::optional<absl::Time> NextDeadline() const override;

 private:
  struct Approval {
    v1::ApprovalRequested request;
    // Outgoing permission requests by call id; answers as they come.
    std::map<std::string, Json> asked;
    std::vector<v1::ApprovalAnswer> answers;
  };
  struct Turn {
    Json prompt_id;
    // The id of this prompt's turn or compaction, chosen as its start is
    // sent; empty until then.
    std::string turn_id;
    // Its start (numbered by the bridge; 0: none sent) and whether that
    // still waits for rawd's answer.
    uint64_t start = 0;
    bool starting = false;
    bool compaction = false;
    // A slash command other than /compact: a daemon call, no turn. A cancel
    // waits for the call's answer (there is nothing to interrupt).
    bool command = false;
    bool cancel_requested = false;
    bool interrupted = false;  // Interrupt was sent
    std::optional<Approval> approval;
  };

  // SessionController::Listener
  void OnConnected() override;
  void OnConnectFailed(const absl::Status& status) override;
  void OnDisconnected(const std::string& why) override;
  void OnSessionOpened(const v1::Session& session, bool created) override;
  void OnSessionOpenFailed(const absl::Status& status, bool creating) override;
  void OnHistory(const absl::Status& status, const std::vector<v1::Event>& events,
                 bool initial) override;
  void OnEvent(const v1::Event& event) override;
  void OnSessionUpdated() override;
  void OnTurnAbandoned() override;
  void OnSessionGone(const absl::Status& status) override;
  void OnLeaseChange(client::SessionLease::Change change,
                     client::SessionLease::State before) override;

  void MaybeOpened();
  void FailOpen(const absl::Status& status);
  void Handle(const v1::Event& event);
  // Counts a start of the prompt's operation `operation_id` as sent
  // (StartTurn, Compact): from here on its events are the prompt's.
  void StartSent(const std::string& operation_id);
  // rawd answered the start `start` (OK: it started `operation_id`).
  void StartAnswered(uint64_t start, const absl::Status& status, const std::string& operation_id);
  void Update(Json update);
  // ConfigureSession with approval_mode_ under the lease just granted;
  // then runs after_setup_. On failure the client is told the mode in force.
  void ChooseModeAgain();
  // Granted the lease: another client may have changed the session's
  // agent (and with it the approval mode its turns run under, unless this
  // bridge chose one) or model meanwhile, which no event says; the client
  // is told the session as it is before a prompt of this lease starts.
  void TellSetupAgain();
  // Tells the client the agent's own mode (the one in force once choosing
  // the mode again failed), then calls `then`.
  void TellAgentMode(std::function<void()> then);
  // Runs after_setup_ once the mode and the MCP servers are settled.
  void RunAfterSetup();
  // Resets turn_, withdrawing its open permission requests first.
  void ClearTurn();
  // Logs that lost_turn_ has ended and forgets it.
  void LostTurnEnded();
  void AskPermissions(const v1::ApprovalRequested& request);
  void OnPermission(const std::string& request_id, const v1::ApprovalCall& call,
                    const RpcResponse& response);
  // Withdraws the turn's open permission requests. Every reset of turn_
  // goes through it (EndTurn, ClearTurn).
  void DropPermissionRequests();
  void Interrupt();
  // The interrupt of the prompt `prompt_id` found nothing running.
  void NothingToInterrupt(const Json& prompt_id);
  // SetSessionMcpServers with servers_ under the lease just granted; then
  // runs after_setup_.
  void ApplyMcpServers();
  // Runs the prompt `id` under the lease just checked: a slash command or
  // a turn (after the approval mode and the client's MCP servers, when they
  // are being chosen again and applied).
  void RunPrompt(const Json& id, AcpPrompt prompt);
  // While following: asks for a handover and holds the prompt `id` until
  // rawd answers (after_lease_).
  void PromptAfterLease(const Json& id, AcpPrompt prompt);
  // The refusal of a prompt while `holder` (may be empty) writes.
  absl::Status HeldElsewhere(const std::string& holder) const;
  void RefusePrompt(const Json& id, const absl::Status& status);
  // Starts the turn of the prompt in turn_. Moves the prompt's images into
  // the request.
  void StartTurn(AcpPrompt& prompt);
  void EndTurn(const absl::StatusOr<std::string>& stop_reason);
  // Ends the prompt (cancelled) and runs the waiting Shutdown callbacks.
  void FinishShutdown();
  // A slash command's text answer, then end_turn (`cancelled` after
  // session/cancel). Does nothing unless the prompt `prompt_id` still runs.
  void CommandDone(const Json& prompt_id, const absl::StatusOr<std::string>& text);
  bool RunCommand(const std::string& text);

  BridgeContext ctx_;
  std::string id_;
  Open how_;
  Opened opened_;
  std::unique_ptr<client::SessionController> controller_;
  std::optional<UpdateMapper> mapper_;

  bool session_open_ = false;
  bool history_done_ = false;
  bool lease_settled_ = false;
  // The handover countdown was running at the last Tick (logged once when it
  // starts: the client's next prompt keeps the session).
  bool counting_down_ = false;
  bool answered_open_ = false;
  bool open_failed_ = false;
  std::string approval_mode_;
  // The lease was granted for the prompt being run (it followed before):
  // given back if that prompt's turn does not run (EndTurn).
  bool lease_for_prompt_ = false;
  std::string told_mode_;
  // The turn whose prompt ended because rawd went away, until the daemon
  // (restarted) records its end or no longer runs it.
  std::string lost_turn_;
  std::vector<v1::Event> history_;  // kLoad: read so far, oldest first
  std::vector<v1::Event> held_;     // live events waiting for the replay
  // Starts sent so far (they number Turn::start).
  uint64_t starts_sent_ = 0;
  // The session is gone (deleted).
  bool gone_ = false;
  std::optional<Turn> turn_;
  // The client's MCP servers waiting for the lease (SetMcpServersWhenWriting).
  std::optional<std::vector<v1::SessionMcpServer>> servers_;
  bool applying_servers_ = false;
  // ConfigureSession calls choosing approval_mode_ again on their way: rawd
  // reads the mode when it plans a turn, so no turn starts before them.
  int choosing_mode_ = 0;
  // The prompt waiting for choosing_mode_ and applying_servers_ to end:
  // called with the outcome (an error when rawd refused the servers).
  std::function<void(const absl::Status&)> after_setup_;
  absl::Status setup_error_;
  // The prompt waiting for rawd's answer to its handover request: called
  // with OK once granted, else with the refusal; and its deadline.
  std::function<void(const absl::Status&)> after_lease_;
  std::optional<absl::Time> lease_deadline_;
  // Shutdown waiting for the interrupt: its callbacks and their deadline.
  std::vector<std::function<void()>> shutdown_done_;
  std::optional<absl::Time> shutdown_deadline_;
  // Tells a daemon call's late answer that this bridge is gone.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::string title_;
  std::optional<std::pair<int64_t, int64_t>> usage_;  // last usage_update sent
};

}  // namespace raw::acp
