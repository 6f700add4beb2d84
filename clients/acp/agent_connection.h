// AgentConnection: the agent side of one ACP connection (raw-acp's stdio,
// or one WebSocket): the methods of ACP protocol version 1 on top of
// JsonRpc, each one a call to rawd through clients/lib, and the open ACP
// sessions, one SessionBridge each. See docs/acp.md for the mapping.
//
// Requests before `initialize` are refused with -32600 (as the TypeScript
// SDK's agent does), unknown methods with -32601; unknown notifications
// are ignored.
//
// Opens (session/new, load, resume) are answered exactly once: with the
// session, with why it failed, -32800 when `$/cancel_request` cancelled it
// (its bridge, if any, is dropped and lets go of the lease), or -32800 when
// session/close closed the session before it had opened.
//
// Close() (the client went away) interrupts the turns this connection
// started, releases every lease and then calls `done`.
//
// Threading: the event loop's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/acp/daemon_calls.h"
#include "clients/acp/event_loop.h"
#include "clients/acp/json_rpc.h"
#include "clients/acp/session_bridge.h"
#include "clients/lib/raw_client.h"

namespace raw::acp {

// The most sessions one connection keeps open or opening: each holds
// threads and a channel to rawd. Opens beyond it are refused (-32600).
inline constexpr size_t kMaxOpenSessions = 32;

struct AgentOptions {
  client::ConnectOptions connect;
  // The agent of new sessions (--agent); empty: the configured default.
  std::string agent;
};

class AgentConnection : public JsonRpc::Handler {
 public:
  AgentConnection(std::shared_ptr<Transport> transport, EventLoop& loop, AgentOptions options);
  ~AgentConnection() override;

  // One received message.
  void Receive(const std::string& message) { rpc_.Receive(message); }
  void Close(std::function<void()> done);

 private:
  void OnRequest(const Json& id, const std::string& method, const Json& params) override;
  void OnNotification(const std::string& method, const Json& params) override;
  bool OnCancelled(const Json& id) override;

  void Initialize(const Json& id, const Json& params);
  // Initialize's answer, once rawd said whether the agent's model takes
  // images.
  void ReplyInitialize(const Json& id, bool images);
  // An open not yet answered: what answers it (a close, a cancel or its
  // end) takes it out of opens_ first, so each answer is given once.
  struct PendingOpen {
    Json id;                 // the request
    std::string session_id;  // once known (session/new: once created)
    bool bridged = false;    // its bridge is sessions_[session_id]
  };
  // Records a pending open; returns its key in opens_.
  uint64_t BeginOpen(const Json& id, std::string session_id);
  // Sessions open or opening here, counted against kMaxOpenSessions (an
  // open of a session already open here replaces its bridge: not counted).
  size_t OpenCount() const;
  // Refuses `id` when the connection has kMaxOpenSessions open; true then.
  bool RefuseOverCap(const Json& id);
  // Closes the bridge of `session_id`: no longer open to requests at once;
  // its prompt answers cancelled, then `then` runs (may be null) and the
  // bridge is destroyed after that task. Safe from within the bridge's own
  // callbacks.
  void ShutDownBridge(const std::string& session_id, std::function<void()> then);
  void NewSession(const Json& id, const Json& params);
  void OpenSession(const Json& id, const Json& params, SessionBridge::Open how);
  void ListSessions(const Json& id, const Json& params);
  // Reads the daemon's page at `token` into `sessions` (those in `cwd`
  // when not empty), and more pages while the answer has fewer than a
  // page of them; then answers. `pages`: daemon pages read so far.
  void ListPage(const Json& id, const std::string& cwd, const std::string& token, Json sessions,
                int pages);
  void CloseSession(const Json& id, const Json& params);
  void SetConfigOption(const Json& id, const Json& params);
  // session/set_mode: the approval mode through ConfigureSession.
  void SetMode(const Json& id, const Json& params);
  // Sends `request` (approval_mode set) for the open session `session_id`;
  // on success records the mode on its bridge, announces it
  // (current_mode_update) and calls `then` with the response.
  void ConfigureMode(const Json& id, const std::string& session_id,
                     v1::ConfigureSessionRequest request,
                     std::function<void(const v1::ConfigureSessionResponse&)> then);
  // The approval mode in force after ConfigureSession answered `r`: the
  // answer's (that of the turns this lease starts), else the agent's own.
  std::string ConfiguredMode(const v1::ConfigureSessionResponse& r) const;
  // After ConfigureSession answered `r` for the open session `session_id`
  // (an agent or model change): tells the client the session's options
  // (config_option_update) when `update_options` and the client takes that
  // update, and the mode in force (current_mode_update) when it is not the
  // one the client was last told.
  void TellConfigured(const std::string& session_id, const v1::ConfigureSessionResponse& r,
                      bool update_options);
  // Sends current_mode_update for the session.
  void NotifyMode(const std::string& session_id, const std::string& mode);
  // The session's approval mode as the client sees it: the one this
  // connection chose, else the agent's configured one.
  std::string CurrentMode(const SessionBridge& bridge) const;
  // The bridge of params.sessionId; answers -32002 (or -32602) and returns
  // null when there is none.
  SessionBridge* FindSession(const Json& id, const Json& params);
  // Gives the client's MCP servers names rawd takes (AssignServerNames,
  // against the configured servers' names), then calls `then`.
  void WithServerNames(std::vector<v1::SessionMcpServer> servers,
                       std::function<void(std::vector<v1::SessionMcpServer>)> then);
  // Starts a bridge for the pending open `open` (nothing when it was
  // answered meanwhile); on success `answer` builds the result. A session
  // whose bridge runs a prompt or is still opening is refused (-32600)
  // rather than replaced, which would leave that prompt or open unanswered.
  void StartBridge(uint64_t open, const std::string& session_id, SessionBridge::Open how,
                   std::vector<v1::SessionMcpServer> servers,
                   std::function<Json(SessionBridge&)> answer);
  // Reads the agents and models, then calls `then` with the options.
  void WithConfigOptions(const v1::Session& session, std::function<void(Json)> then);
  // Tells the client the session's agent, model and mode as rawd describes
  // them now (BridgeContext::tell_setup), then calls `done`.
  void TellSetup(const v1::Session& session, std::function<void()> done);
  void SendCommands(const std::string& session_id);

  EventLoop& loop_;
  AgentOptions options_;
  JsonRpc rpc_;
  DaemonCalls calls_;
  BridgeContext bridge_context_;
  bool initialized_ = false;
  // The initialize request waiting for its answer (rawd's agents and
  // models); a $/cancel_request for it makes the connection uninitialized
  // again.
  std::optional<Json> initializing_;
  bool closing_ = false;
  std::map<std::string, std::unique_ptr<SessionBridge>> sessions_;
  std::map<uint64_t, PendingOpen> opens_;
  uint64_t next_open_ = 0;
  // Sessions whose session/close has begun, each with the number of its
  // close: no longer open to requests, even before their bridge is gone (a
  // client may send the next request the moment it has the answer to the
  // close). Opening the session again removes its entry.
  std::map<std::string, uint64_t> closed_;
  uint64_t closes_ = 0;
  std::vector<v1::AgentInfo> agents_;
  std::vector<v1::ModelInfo> models_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace raw::acp
