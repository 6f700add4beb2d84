#include "clients/acp/session_bridge.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/acp/permissions.h"
#include "clients/acp/session_modes.h"
#include "clients/acp/stop_reason.h"
#include "clients/present/compaction_text.h"
#include "clients/present/turn_end.h"
#include "common/logging.h"

namespace raw::acp {

using client::HandoverGate;
using client::SessionLease;

SessionBridge::SessionBridge(BridgeContext context, std::string session_id, Open how, Opened opened)
    : ctx_(std::move(context)), id_(std::move(session_id)), how_(how), opened_(std::move(opened)) {
  client::SessionController::Options options;
  options.connect = ctx_.connect;
  options.identity = ctx_.identity;
  EventLoop* loop = ctx_.loop;
  client::SessionController::Listener& listener = *this;
  // Live events run at once on the stream's thread when the loop is idle:
  // a streamed chunk is written without waking the loop's thread.
  controller_ = std::make_unique<client::SessionController>(
      options, [loop](std::function<void()> task) { loop->Post(std::move(task)); }, listener,
      [loop](std::function<void()> task) { loop->RunOrPost(std::move(task)); });
  ctx_.loop->AddTicker(this);
  controller_->Start();
}

SessionBridge::~SessionBridge() {
  *alive_ = false;
  DropPermissionRequests();
  ctx_.loop->RemoveTicker(this);
  // The controller's destructor releases the lease and ends the streams.
  controller_.reset();
}

std::string SessionBridge::lease_id() const {
  return controller_->can_write() ? controller_->lease().lease_id() : "";
}

// --- opening ---

void SessionBridge::OnConnected() { controller_->OpenSession(id_); }

void SessionBridge::OnConnectFailed(const absl::Status& status) { FailOpen(status); }

void SessionBridge::OnSessionOpenFailed(const absl::Status& status, bool) { FailOpen(status); }

void SessionBridge::FailOpen(const absl::Status& status) {
  if (answered_open_) return;
  answered_open_ = true;
  open_failed_ = true;
  Opened opened = std::move(opened_);
  opened(status);  // the connection drops this bridge
}

void SessionBridge::OnSessionOpened(const v1::Session& session, bool) {
  session_open_ = true;
  mapper_.emplace(session.cwd());
  title_ = session.title();
  history_done_ = how_ != Open::kLoad;
}

void SessionBridge::OnHistory(const absl::Status& status, const std::vector<v1::Event>& events,
                              bool) {
  if (how_ != Open::kLoad || history_done_) return;
  if (!status.ok()) {
    FailOpen(absl::Status(status.code(),
                          absl::StrCat("reading the session's history: ", status.message())));
    return;
  }
  // Pages come newest first, each oldest first.
  history_.insert(history_.begin(), events.begin(), events.end());
  if (!controller_->history_complete()) {
    controller_->LoadOlderHistory();
    return;
  }
  history_done_ = true;
  MaybeOpened();
}

void SessionBridge::OnLeaseChange(SessionLease::Change change, SessionLease::State) {
  switch (change) {
    case SessionLease::Change::kGranted:
    case SessionLease::Change::kFollowing:
    case SessionLease::Change::kLost:
      lease_settled_ = true;
      break;
    case SessionLease::Change::kHandedOver:
      RAW_LOG(Info) << "session " << id_ << " handed over to "
                    << controller_->lease().requester().client_name();
      break;
    case SessionLease::Change::kKept:
      RAW_LOG(Info) << "session " << id_ << ": kept; declined the handover to "
                    << controller_->lease().requester().client_name();
      break;
    case SessionLease::Change::kDeclined:
      RAW_LOG(Info) << "session " << id_ << ": the handover was declined by "
                    << controller_->lease().holder();
      break;
    default:
      break;
  }
  if (change == SessionLease::Change::kGranted && answered_open_) {
    RAW_LOG(Info) << "session " << id_ << ": this bridge writes again";
    if (!approval_mode_.empty()) ChooseModeAgain();
    TellSetupAgain();
    if (servers_ && !applying_servers_) ApplyMcpServers();
  }
  MaybeOpened();
  if (after_lease_) {
    absl::Status answer = absl::OkStatus();
    switch (change) {
      case SessionLease::Change::kGranted:
        break;
      case SessionLease::Change::kWaiting:  // rawd named the holder now
      case SessionLease::Change::kFollowing:
        answer = HeldElsewhere(controller_->lease().holder());
        break;
      case SessionLease::Change::kDeclined:
        answer = absl::FailedPreconditionError(absl::StrCat(
            "session ", id_, " is open for writing in \"", controller_->lease().holder(),
            "\", which keeps it (it declined to hand "
            "the session over)"));
        break;
      case SessionLease::Change::kLost:
        answer = absl::UnavailableError(
            "raw-acp lost its connection to rawd while asking for the session; try again");
        break;
      default:
        return;
    }
    auto then = std::move(after_lease_);
    after_lease_ = nullptr;
    lease_deadline_.reset();
    then(answer);
  }
}

void SessionBridge::ChooseModeAgain() {
  ++choosing_mode_;
  const std::string lease_id = controller_->lease().lease_id();
  v1::ConfigureSessionRequest request;
  request.set_session_id(id_);
  request.set_lease_id(lease_id);
  request.set_approval_mode(approval_mode_);
  // On the connection's calls, whose order is not that of the controller's
  // StartTurn: a prompt's turn waits for this answer (RunPrompt).
  ctx_.calls->Call<v1::ConfigureSessionResponse>(
      [request](client::RawClient& c) { return c.ConfigureSession(request); },
      [this, alive = alive_, lease_id](const absl::StatusOr<v1::ConfigureSessionResponse>& r) {
        if (!*alive) return;
        auto done = [this] {
          --choosing_mode_;
          RunAfterSetup();
        };
        if (r.ok()) {
          done();
          return;
        }
        RAW_LOG(Warning) << "session " << id_
                         << ": choosing the approval mode again: " << r.status();
        if (!controller_->can_write() || controller_->lease().lease_id() != lease_id) {
          done();  // the lease went meanwhile: chosen again at the next grant
          return;
        }
        // rawd never applies a mode it refused: the turns of this lease run
        // with the agent's own mode, which the client is told.
        approval_mode_.clear();
        TellAgentMode(done);
      });
}

void SessionBridge::TellSetupAgain() {
  if (!ctx_.tell_setup) return;
  controller_->RefreshSession();  // this bridge's own copy of the session
  ++choosing_mode_;
  v1::GetSessionRequest request;
  request.set_session_id(id_);
  request.set_without_context(true);
  ctx_.calls->Call<v1::GetSessionResponse>(
      [request](client::RawClient& c) { return c.GetSession(request); },
      [this, alive = alive_](const absl::StatusOr<v1::GetSessionResponse>& r) {
        if (!*alive) return;
        auto done = [this, alive = alive_] {
          if (!*alive) return;
          --choosing_mode_;
          RunAfterSetup();
        };
        if (!r.ok()) {
          RAW_LOG(Warning) << "session " << id_ << ": reading the session: " << r.status();
          done();
          return;
        }
        ctx_.tell_setup(r->session(), done);
      });
}

void SessionBridge::TellAgentMode(std::function<void()> then) {
  ctx_.calls->Call<v1::ListAgentsResponse>(
      [](client::RawClient& c) { return c.ListAgents(v1::ListAgentsRequest()); },
      [this, alive = alive_, then](const absl::StatusOr<v1::ListAgentsResponse>& agents) {
        if (!*alive) return;
        if (agents.ok()) {
          const std::vector<v1::AgentInfo> list(agents->agents().begin(), agents->agents().end());
          const std::string mode = AgentMode(list, session().agent());
          if (mode != told_mode_) {
            told_mode_ = mode;
            ctx_.rpc->Notify(
                "session/update",
                Json{{"sessionId", id_},
                     {"update",
                      {{"sessionUpdate", "current_mode_update"}, {"currentModeId", mode}}}});
          }
        } else {
          RAW_LOG(Warning) << "session " << id_ << ": listing the agents: " << agents.status();
        }
        then();
      });
}

void SessionBridge::RunAfterSetup() {
  if (choosing_mode_ > 0 || applying_servers_ || !after_setup_) return;
  auto then = std::move(after_setup_);
  after_setup_ = nullptr;
  absl::Status status = std::move(setup_error_);
  setup_error_ = absl::OkStatus();
  then(status);
}

void SessionBridge::SetMcpServersWhenWriting(std::vector<v1::SessionMcpServer> servers) {
  servers_ = std::move(servers);
  if (controller_->can_write() && !applying_servers_) ApplyMcpServers();
}

void SessionBridge::ApplyMcpServers() {
  applying_servers_ = true;
  v1::SetSessionMcpServersRequest request;
  request.set_session_id(id_);
  request.set_lease_id(controller_->lease().lease_id());
  for (const v1::SessionMcpServer& s : *servers_) *request.add_servers() = s;
  ctx_.calls->Call<v1::SetSessionMcpServersResponse>(
      [request](client::RawClient& c) { return c.SetSessionMcpServers(request); },
      [this, alive = alive_](const absl::StatusOr<v1::SetSessionMcpServersResponse>& r) {
        if (!*alive) return;
        applying_servers_ = false;
        absl::Status status = r.status();
        if (status.ok()) {
          // Tests wait for this line.
          RAW_LOG(Info) << "session " << id_ << ": the client's MCP servers are the session's own";
          servers_.reset();
        } else {
          status = absl::Status(status.code(), absl::StrCat("passing the client's MCP servers to "
                                                            "the session: ",
                                                            status.message()));
          RAW_LOG(Warning) << "session " << id_ << ": " << status;
          // Tried again at the next grant when the lease went meanwhile;
          // otherwise rawd refused them for good.
          if (controller_->can_write()) servers_.reset();
          // The prompt waiting for them fails with rawd's reason.
          if (after_setup_) setup_error_ = status;
        }
        RunAfterSetup();
      });
}

void SessionBridge::MaybeOpened() {
  if (answered_open_ || !session_open_ || !history_done_ || !lease_settled_) return;
  if (how_ == Open::kLoad) {
    for (Json& update : mapper_->Replay(history_)) Update(std::move(update));
    history_.clear();
  }
  answered_open_ = true;
  std::vector<v1::Event> held = std::move(held_);
  held_.clear();
  Opened opened = std::move(opened_);
  opened(absl::OkStatus());
  for (const v1::Event& event : held) Handle(event);
}

// --- events ---

void SessionBridge::OnEvent(const v1::Event& event) {
  if (!answered_open_) {
    held_.push_back(event);
    return;
  }
  Handle(event);
}

void SessionBridge::StartSent(const std::string& operation_id) {
  turn_->start = ++starts_sent_;
  turn_->starting = true;
  // The operation's events may come before rawd answers the start: they
  // are the prompt's from now on.
  turn_->turn_id = operation_id;
}

void SessionBridge::StartAnswered(uint64_t start, const absl::Status& status,
                                  const std::string& operation_id) {
  // The turn may have ended already (its end came before the answer), and
  // another prompt's start may have been sent since.
  if (!turn_ || turn_->start != start) return;
  turn_->starting = false;
  // rawd gives the operation the id the start chose.
  if (status.ok()) turn_->turn_id = operation_id;
}

void SessionBridge::Update(Json update) {
  // The agent's text goes through the chunk coalescing of JsonRpc.
  const std::string kind = update.value("sessionUpdate", "");
  for (const char* text_kind : {"agent_message_chunk", "agent_thought_chunk"}) {
    const Json* content = update.contains("content") ? &update["content"] : nullptr;
    if (kind == text_kind && content && content->value("type", "") == "text" &&
        content->contains("text") && (*content)["text"].is_string()) {
      ctx_.rpc->NotifyTextChunk(id_, text_kind, (*content)["text"].get_ref<const std::string&>());
      return;
    }
  }
  ctx_.rpc->Notify("session/update", Json{{"sessionId", id_}, {"update", std::move(update)}});
}

void SessionBridge::Handle(const v1::Event& event) {
  // Only the operation rawd started for the prompt is the prompt's: not a
  // turn of the holder this bridge is taking the lease from, nor one that
  // follows an operation whose start event was never recorded.
  const bool own = turn_ && !turn_->turn_id.empty() && event.turn_id() == turn_->turn_id;
  if (event.has_turn_ended() && !lost_turn_.empty() && event.turn_id() == lost_turn_) {
    LostTurnEnded();  // the restarted daemon recorded its end
  }
  if (std::optional<UpdateMapper::Delta> delta = mapper_->LiveDelta(event)) {
    ctx_.rpc->NotifyTextChunk(id_, delta->kind, *delta->text);
  } else {
    for (Json& update : mapper_->Live(event, /*foreign_turn=*/!own)) Update(std::move(update));
  }

  if (event.has_context_estimate() && ctx_.newer_updates &&
      event.context_estimate().has_window_tokens()) {
    std::pair<int64_t, int64_t> usage{event.context_estimate().tokens(),
                                      event.context_estimate().window_tokens()};
    if (usage_ != usage) {
      usage_ = usage;
      Update({{"sessionUpdate", "usage_update"}, {"used", usage.first}, {"size", usage.second}});
    }
  }
  if (!own) return;
  switch (event.payload_case()) {
    case v1::Event::kApprovalRequested:
      AskPermissions(event.approval_requested());
      break;
    case v1::Event::kApprovalResolved:
      if (turn_->approval &&
          turn_->approval->request.request_id() == event.approval_resolved().request_id()) {
        // Resolved without (all of) this client's answers: a timeout or
        // another client. The client's open dialogs are withdrawn.
        DropPermissionRequests();
      }
      break;
    case v1::Event::kTurnEnded:
      EndTurn(StopReason(event.turn_ended(), turn_->cancel_requested));
      break;
    case v1::Event::kCompactionEnded:
      if (turn_->compaction) {
        Update(TextChunk("agent_message_chunk", present::Capitalized(present::CompactionEndedText(
                                                    event.compaction_ended()))));
        EndTurn(turn_->cancel_requested ? "cancelled" : "end_turn");
      }
      break;
    default:
      break;
  }
}

void SessionBridge::OnSessionUpdated() {
  const v1::Session& s = controller_->session();
  if (!ctx_.newer_updates || s.title().empty() || s.title() == title_) return;
  title_ = s.title();
  Update({{"sessionUpdate", "session_info_update"}, {"title", title_}});
}

// --- permissions ---

void SessionBridge::AskPermissions(const v1::ApprovalRequested& request) {
  DropPermissionRequests();
  turn_->approval.emplace();
  turn_->approval->request = request;
  // The calls' tool_call updates went out with their batch, before this.
  for (const v1::ApprovalCall& call : request.calls()) {
    if (call.state() != v1::APPROVAL_STATE_PENDING) continue;
    Json id =
        ctx_.rpc->Request("session/request_permission",
                          PermissionRequest(id_, call, mapper_ ? session().cwd() : "",
                                            mapper_ ? mapper_->ToolCallId(call.call_id()) : ""),
                          [this, alive = alive_, request_id = request.request_id(),
                           call](const RpcResponse& response) {
                            if (*alive) OnPermission(request_id, call, response);
                          });
    turn_->approval->asked[call.call_id()] = id;
  }
}

void SessionBridge::OnPermission(const std::string& request_id, const v1::ApprovalCall& call,
                                 const RpcResponse& response) {
  if (!turn_ || !turn_->approval || turn_->approval->request.request_id() != request_id) return;
  Approval& approval = *turn_->approval;
  approval.asked.erase(call.call_id());
  // After session/cancel the turn is being interrupted: late answers are
  // not passed on.
  if (turn_->cancel_requested) return;
  approval.answers.push_back(PermissionAnswer(call, response));
  if (!approval.asked.empty()) return;
  v1::RespondToApprovalRequest answer;
  answer.set_session_id(id_);
  answer.set_request_id(request_id);
  for (const v1::ApprovalAnswer& a : approval.answers) *answer.add_answers() = a;
  answer.set_lease_id(controller_->lease().lease_id());
  turn_->approval.reset();
  ctx_.calls->Call<v1::RespondToApprovalResponse>(
      [answer](client::RawClient& c) { return c.RespondToApproval(answer); },
      [id = id_](const absl::StatusOr<v1::RespondToApprovalResponse>& r) {
        if (!r.ok())
          RAW_LOG(Warning) << "session " << id << ": answering an approval: " << r.status();
      });
}

void SessionBridge::DropPermissionRequests() {
  if (!turn_ || !turn_->approval) return;
  for (const auto& [call_id, request_id] : turn_->approval->asked) {
    ctx_.rpc->CancelRequest(request_id);
  }
  turn_->approval.reset();
}

void SessionBridge::ClearTurn() {
  DropPermissionRequests();
  turn_.reset();
}

// --- prompts ---

absl::Status SessionBridge::HeldElsewhere(const std::string& holder) const {
  return absl::FailedPreconditionError(absl::StrCat(
      "session ", id_, " is open for writing in ",
      holder.empty() ? "another client" : absl::StrCat("\"", holder, "\""),
      "; raw-acp asked it to hand the session over: send the prompt again once it has"));
}

absl::Status SessionBridge::CheckWrite() {
  if (!controller_->connected()) {
    return absl::UnavailableError(
        "raw-acp is not connected to rawd (it is reconnecting); try again");
  }
  const SessionLease& lease = controller_->lease();
  if (controller_->can_write()) return absl::OkStatus();
  if (lease.following()) {
    if (lease.state() == SessionLease::State::kFollowing) controller_->RequestHandover();
    return HeldElsewhere(lease.holder());
  }
  return absl::UnavailableError("raw-acp does not hold this session's write lease yet; try again");
}

void SessionBridge::RefusePrompt(const Json& id, const absl::Status& status) {
  RpcError error = ErrorFromStatus(status);
  if (controller_->lease().following()) error.data = {{"holder", controller_->lease().holder()}};
  ctx_.rpc->ReplyError(id, error);
}

bool SessionBridge::HasPrompt(const Json& id) const {
  return turn_ && SameId(turn_->prompt_id, id);
}

void SessionBridge::Prompt(const Json& id, const Json& params) {
  if (turn_) {
    ctx_.rpc->ReplyError(id, {rpc_code::kInvalidRequest,
                              absl::StrCat("a prompt is already running in session ", id_,
                                           "; wait for its answer or cancel it"),
                              nullptr});
    return;
  }
  // Refuses, among others, a prompt larger than rawd takes in one request:
  // it is never sent.
  absl::StatusOr<AcpPrompt> prompt = PromptOf(params.value("prompt", Json()));
  if (!prompt.ok()) {
    ctx_.rpc->ReplyError(id, ErrorFromStatus(prompt.status()));
    return;
  }
  if (controller_->connected() && controller_->lease().state() == SessionLease::State::kFollowing) {
    PromptAfterLease(id, *std::move(prompt));
    return;
  }
  if (absl::Status s = CheckWrite(); !s.ok()) {
    RefusePrompt(id, s);
    return;
  }
  RunPrompt(id, *std::move(prompt));
}

void SessionBridge::PromptAfterLease(const Json& id, AcpPrompt prompt) {
  // The holder last heard of may have let go since (rawd tells followers
  // nothing then): rawd's answer to the handover request says who holds
  // the session now, or grants it when nobody does.
  turn_ = Turn{.prompt_id = id, .turn_id = {}, .approval = {}};
  auto shared = std::make_shared<AcpPrompt>(std::move(prompt));
  after_lease_ = [this, id, shared](const absl::Status& refused) {
    if (!turn_ || !SameId(turn_->prompt_id, id)) return;
    ClearTurn();
    if (!refused.ok()) {
      RefusePrompt(id, refused);
      return;
    }
    lease_for_prompt_ = true;
    RunPrompt(id, std::move(*shared));
  };
  lease_deadline_ = absl::Now() + kLeaseAnswerWait;
  controller_->RequestHandover();
}

void SessionBridge::RunPrompt(const Json& id, AcpPrompt prompt) {
  // A prompt is the user's activity, as a key is in `raw`: during a
  // handover countdown it keeps the lease (the request is declined), and
  // before one it pushes back the idle time that starts it. It also covers
  // the moment before the turn's first event, when no turn is seen running.
  controller_->KeyPressed(absl::Now());
  turn_ = Turn{.prompt_id = id, .turn_id = {}, .approval = {}};
  // A prompt with images is never a command.
  if (prompt.images.empty() && RunCommand(prompt.text)) return;
  auto shared = std::make_shared<AcpPrompt>(std::move(prompt));
  if (choosing_mode_ > 0 || applying_servers_) {
    // rawd reads the approval mode and the tools when it plans the turn:
    // it starts once the mode this client chose is chosen again and the
    // client's MCP servers are the session's own.
    after_setup_ = [this, id, shared](const absl::Status& status) {
      if (!turn_ || !SameId(turn_->prompt_id, id)) return;
      if (!status.ok()) {
        EndTurn(status);
        return;
      }
      StartTurn(*shared);
    };
    return;
  }
  StartTurn(*shared);
}

void SessionBridge::StartTurn(AcpPrompt& prompt) {
  const uint64_t start = starts_sent_ + 1;
  auto done = [this, start](const absl::Status& status, const std::string& turn_id) {
    StartAnswered(start, status, turn_id);
    if (status.ok() || !turn_ || turn_->start != start) return;
    // A cancel that reached the turn while rawd prepared it ends it before
    // it starts (CANCELLED): the prompt answers `cancelled`, never an error.
    EndTurn(turn_->cancel_requested ? absl::StatusOr<std::string>("cancelled")
                                    : absl::StatusOr<std::string>(status));
  };
  absl::StatusOr<std::string> turn_id =
      controller_->StartTurnWithId(prompt.text, std::move(done), std::move(prompt.images));
  if (!turn_id.ok()) {
    EndTurn(turn_id.status());
    return;
  }
  StartSent(*turn_id);
}

void SessionBridge::Cancel() {
  if (!turn_) return;  // idle: nothing to cancel
  if (after_lease_) {  // waiting for the lease: nothing has started
    EndTurn(std::string("cancelled"));
    return;
  }
  if (after_setup_) {  // the turn has not started
    after_setup_ = nullptr;
    setup_error_ = absl::OkStatus();
    EndTurn(std::string("cancelled"));
    return;
  }
  turn_->cancel_requested = true;
  if (turn_->command) return;  // CommandDone answers cancelled
  // The open permission requests are withdrawn: after session/cancel the
  // client answers them `cancelled` itself, but after a $/cancel_request of
  // the prompt nothing else would close their dialogs. Late answers are
  // dropped either way.
  DropPermissionRequests();
  Interrupt();
}

void SessionBridge::Interrupt() {
  if (!turn_ || turn_->interrupted) return;
  turn_->interrupted = true;
  // (The controller runs no callback after it is gone, nor after this
  // bridge, which owns it.)
  absl::Status s = controller_->InterruptWithOutcome(
      [this, prompt_id = turn_->prompt_id](const absl::Status& status, bool interrupted) {
        if (!status.ok()) {
          RAW_LOG(Warning) << "session " << id_ << ": interrupting: " << status;
        } else if (!interrupted) {
          NothingToInterrupt(prompt_id);
        }
      });
  if (!s.ok()) RAW_LOG(Warning) << "session " << id_ << ": cannot interrupt: " << s;
}

void SessionBridge::NothingToInterrupt(const Json& prompt_id) {
  if (!turn_ || !SameId(turn_->prompt_id, prompt_id)) return;  // it ended meanwhile
  // A start still on its way decides: it is answered CANCELLED, or the
  // controller interrupts the operation it started (whose end answers).
  if (turn_->starting) return;
  // The session shows an operation running: its end is on its way.
  if (controller_->activity().busy()) return;
  // rawd runs nothing for this prompt, and no end of it is coming: a
  // cancelled prompt answers `cancelled` rather than never (and a prompt
  // left running would refuse every later one).
  RAW_LOG(Info) << "session " << id_ << ": nothing left to interrupt; the prompt ends cancelled";
  EndTurn(std::string("cancelled"));
}

void SessionBridge::EndTurn(const absl::StatusOr<std::string>& stop_reason) {
  if (!turn_) return;
  Json id = turn_->prompt_id;
  // A lease taken for this prompt alone, whose turn did not run (another
  // client's turn still runs, say): given back, so that the client whose
  // turn it is can take its session again to answer its approvals.
  const bool let_go = lease_for_prompt_ && !stop_reason.ok();
  lease_for_prompt_ = false;
  ClearTurn();
  after_lease_ = nullptr;
  lease_deadline_.reset();
  after_setup_ = nullptr;
  setup_error_ = absl::OkStatus();
  if (stop_reason.ok()) {
    ctx_.rpc->Reply(id, Json{{"stopReason", *stop_reason}});
  } else {
    ctx_.rpc->ReplyError(id, ErrorFromStatus(stop_reason.status()));
  }
  if (let_go) {
    RAW_LOG(Info) << "session " << id_ << ": the prompt's turn did not start; gave the lease back";
    controller_->LetGoOfLease();
  }
}

void SessionBridge::Shutdown(std::function<void()> done) {
  if (!shutdown_done_.empty()) {  // already waiting for the interrupt
    shutdown_done_.push_back(std::move(done));
    return;
  }
  if (turn_ && after_setup_) {  // the turn has not started
    after_setup_ = nullptr;
    setup_error_ = absl::OkStatus();
    EndTurn(std::string("cancelled"));
  }
  if (turn_ && turn_->command) {
    // Nothing to interrupt; the command's late answer finds no prompt.
    EndTurn(std::string("cancelled"));
  }
  if (!turn_ || !controller_->can_write()) {
    if (turn_) EndTurn(std::string("cancelled"));
    done();
    return;
  }
  turn_->cancel_requested = true;
  turn_->interrupted = true;
  shutdown_done_.push_back(std::move(done));
  shutdown_deadline_ = absl::Now() + kShutdownWait;
  absl::Status s = controller_->Interrupt([this](const absl::Status& status) {
    if (!status.ok()) RAW_LOG(Warning) << "session " << id_ << ": interrupting: " << status;
    FinishShutdown();
  });
  if (!s.ok()) FinishShutdown();
}

void SessionBridge::FinishShutdown() {
  if (shutdown_done_.empty()) return;  // finished already (the wait ran out)
  std::vector<std::function<void()>> done = std::move(shutdown_done_);
  shutdown_done_.clear();
  shutdown_deadline_.reset();
  EndTurn(std::string("cancelled"));
  for (const auto& d : done) d();
}

void SessionBridge::Tick(absl::Time now) {
  if (shutdown_deadline_ && now >= *shutdown_deadline_) {
    RAW_LOG(Warning) << "session " << id_ << ": rawd did not take the interrupt within "
                     << absl::FormatDuration(kShutdownWait)
                     << "; letting go (releasing the lease interrupts the turn)";
    FinishShutdown();
    return;  // `done` may have dropped this bridge
  }
  if (lease_deadline_ && now >= *lease_deadline_ && after_lease_) {
    auto then = std::move(after_lease_);
    after_lease_ = nullptr;
    lease_deadline_.reset();
    then(absl::UnavailableError(
        absl::StrCat("rawd did not answer raw-acp's request for session ", id_, " within ",
                     absl::FormatDuration(kLeaseAnswerWait), "; send the prompt again")));
  }
  controller_->Tick(now);
  const HandoverGate& gate = controller_->lease().gate();
  const bool counting_down = gate.phase() == HandoverGate::Phase::kCountdown;
  if (counting_down && !counting_down_) {
    RAW_LOG(Info) << "session " << id_ << ": handing the session over to "
                  << gate.requester().client_name() << " in " << gate.SecondsLeft(now)
                  << " s unless the client prompts";
  }
  counting_down_ = counting_down;
}

std::optional<absl::Time> SessionBridge::NextDeadline() const {
  std::optional<absl::Time> next = controller_->NextDeadline();
  if (shutdown_deadline_ && (!next || *shutdown_deadline_ < *next)) next = shutdown_deadline_;
  if (lease_deadline_ && (!next || *lease_deadline_ < *next)) next = lease_deadline_;
  return next;
}

// --- the daemon going away ---

void SessionBridge::OnDisconnected(const std::string& why) {
  RAW_LOG(Warning) << "session " << id_ << ": rawd went away (" << why << "); reconnecting";
  if (!turn_) return;
  // The turn's end cannot be known until rawd is back, and a daemon that
  // stopped during a turn does not finish it: the prompt ends now. A start
  // still unanswered may never have reached rawd: no end of it is awaited.
  lost_turn_ = turn_->starting ? std::string() : turn_->turn_id;
  if (turn_->cancel_requested) {
    EndTurn(std::string("cancelled"));
    return;
  }
  EndTurn(absl::UnavailableError(absl::StrCat(
      "rawd went away during this turn (", why,
      "); raw-acp reconnects and resumes the session: send the prompt again once it is back")));
}

void SessionBridge::OnTurnAbandoned() {
  LostTurnEnded();
  if (turn_) EndTurn(absl::UnavailableError("rawd restarted during this turn; it did not finish"));
}

void SessionBridge::LostTurnEnded() {
  if (lost_turn_.empty()) return;
  // Tests wait for this line: from here on the session takes prompts again.
  RAW_LOG(Info) << "session " << id_ << ": the turn cut off when rawd went away has ended";
  lost_turn_.clear();
}

void SessionBridge::OnSessionGone(const absl::Status& status) {
  if (gone_) return;
  gone_ = true;
  // Tests wait for this line.
  RAW_LOG(Info) << "session " << id_ << " is gone: " << status.message();
  if (!answered_open_) {
    FailOpen(status);  // the connection drops this bridge
    return;
  }
  if (turn_) {
    EndTurn(absl::NotFoundError(absl::StrCat("session ", id_, " is gone: ", status.message())));
  }
  // Last: the connection lets go of this bridge.
  if (ctx_.session_gone) ctx_.session_gone(id_);
}

}  // namespace raw::acp
