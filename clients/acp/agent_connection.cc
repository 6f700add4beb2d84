#include "clients/acp/agent_connection.h"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "clients/acp/config_options.h"
#include "clients/acp/mcp_servers.h"
#include "clients/acp/request_params.h"
#include "clients/acp/session_modes.h"
#include "common/logging.h"
#include "common/version.h"

namespace raw::acp {
namespace {

// The ACP protocol version raw-acp speaks.
constexpr int kAcpVersion = 1;
constexpr int kListPageSize = 50;
// Daemon pages read at most for one session/list answer with a cwd filter.
constexpr int kListMaxDaemonPages = 10;

RpcError InvalidParams(const std::string& message) {
  return {rpc_code::kInvalidParams, message, nullptr};
}

std::string IsoTime(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

}  // namespace

AgentConnection::AgentConnection(std::shared_ptr<Transport> transport, EventLoop& loop,
                                 AgentOptions options)
    : loop_(loop),
      options_(std::move(options)),
      rpc_(std::move(transport), *this),
      calls_(options_.connect, loop) {
  // Text chunks queued in one pass of the loop leave as one line.
  rpc_.SetDeferral([&loop](std::function<void()> task) { loop.Post(std::move(task)); });
  bridge_context_.rpc = &rpc_;
  bridge_context_.calls = &calls_;
  bridge_context_.loop = &loop_;
  bridge_context_.connect = options_.connect;
  // A turn the bridge started ends with it, even when the editor kills it
  // with SIGKILL (the daemon sees the lease's connection end).
  bridge_context_.identity = {absl::StrCat("raw-acp (pid ", getpid(), ")"), "raw-acp", getpid(),
                              /*interrupt_on_release=*/true};
  // A deleted session is no longer open here: its requests get -32002, and
  // it no longer counts against the cap.
  bridge_context_.session_gone = [this, alive = alive_](const std::string& session_id) {
    if (*alive) ShutDownBridge(session_id, nullptr);
  };
  bridge_context_.tell_setup = [this, alive = alive_](const v1::Session& session,
                                                      std::function<void()> done) {
    if (*alive) TellSetup(session, std::move(done));
  };
  bridge_context_.configured = [this, alive = alive_](const std::string& session_id,
                                                      const v1::ConfigureSessionResponse& r) {
    if (*alive) TellConfigured(session_id, r, /*update_options=*/true);
  };
}

AgentConnection::~AgentConnection() { *alive_ = false; }

void AgentConnection::OnRequest(const Json& id, const std::string& method, const Json& params) {
  if (closing_) return;
  if (method == "initialize") {
    Initialize(id, params);
    return;
  }
  if (!initialized_) {
    rpc_.ReplyError(id, {rpc_code::kInvalidRequest,
                         "the connection is not initialized: send \"initialize\" first", nullptr});
    return;
  }
  if (method == "session/new") {
    NewSession(id, params);
  } else if (method == "session/load") {
    OpenSession(id, params, SessionBridge::Open::kLoad);
  } else if (method == "session/resume") {
    OpenSession(id, params, SessionBridge::Open::kResume);
  } else if (method == "session/list") {
    ListSessions(id, params);
  } else if (method == "session/close") {
    CloseSession(id, params);
  } else if (method == "session/prompt") {
    if (SessionBridge* bridge = FindSession(id, params)) bridge->Prompt(id, params);
  } else if (method == "session/set_config_option") {
    SetConfigOption(id, params);
  } else if (method == "session/set_mode") {
    SetMode(id, params);
  } else {
    rpc_.ReplyError(id, {rpc_code::kMethodNotFound,
                         absl::StrCat("raw-acp has no method \"", method, "\""), nullptr});
  }
}

void AgentConnection::OnNotification(const std::string& method, const Json& params) {
  if (closing_ || !initialized_) return;
  if (method == "session/cancel") {
    auto it = sessions_.find(StringParam(params, "sessionId"));
    if (it != sessions_.end()) it->second->Cancel();
  }
  // Any other notification is ignored, as JSON-RPC wants.
}

bool AgentConnection::OnCancelled(const Json& id) {
  if (initializing_ && SameId(*initializing_, id)) {
    // Answered -32800 by JsonRpc; the connection is not initialized, and
    // initialize may be sent again.
    initializing_.reset();
    initialized_ = false;
    return false;
  }
  // A prompt cancelled this way is interrupted like session/cancel and
  // answers `cancelled` after its turn's last update (a -32800 now would
  // come before them, and the session would still be busy after it);
  // other requests are answered -32800 and lose their late answer.
  for (auto& [session_id, bridge] : sessions_) {
    if (bridge->HasPrompt(id)) {
      bridge->Cancel();
      return true;
    }
  }
  // An open stops: its bridge, once made, is dropped (it would otherwise
  // hold the session's lease and stream its updates unasked).
  for (auto it = opens_.begin(); it != opens_.end(); ++it) {
    if (!SameId(it->second.id, id)) continue;
    PendingOpen open = std::move(it->second);
    opens_.erase(it);
    rpc_.ReplyError(
        id, {rpc_code::kRequestCancelled,
             "the request was cancelled; the session is not open on this connection", nullptr});
    if (open.bridged) ShutDownBridge(open.session_id, nullptr);
    return true;
  }
  return false;
}

void AgentConnection::Initialize(const Json& id, const Json& params) {
  if (initialized_) {
    rpc_.ReplyError(id,
                    {rpc_code::kInvalidRequest, "the connection is already initialized", nullptr});
    return;
  }
  auto version = params.find("protocolVersion");
  if (version == params.end() || !version->is_number_integer()) {
    rpc_.ReplyError(id, InvalidParams("\"protocolVersion\" must be an integer"));
    return;
  }
  // Taken back when the request is cancelled before its answer.
  initialized_ = true;
  initializing_ = id;
  // Clients that send clientInfo postdate the update kinds usage_update and
  // session_info_update (older SDKs reject those): see docs/acp.md.
  const Json info = params.value("clientInfo", Json());
  bridge_context_.newer_updates = info.is_object() && info.contains("name");
  std::string client_name = bridge_context_.newer_updates ? StringParam(info, "name") : "";
  if (!client_name.empty()) {
    bridge_context_.identity.name =
        absl::StrCat("raw-acp for ", client_name, " (pid ", getpid(), ")");
  }
  // Whether images are offered depends on the agent's model: ask rawd
  // first (a daemon that cannot be reached offers none; session/new then
  // reports why).
  calls_.Call<v1::ListAgentsResponse>(
      [](client::RawClient& c) { return c.ListAgents(v1::ListAgentsRequest()); },
      [this, id](const absl::StatusOr<v1::ListAgentsResponse>& agents) {
        if (agents.ok()) agents_.assign(agents->agents().begin(), agents->agents().end());
        calls_.Call<v1::ListModelsResponse>(
            [](client::RawClient& c) { return c.ListModels(v1::ListModelsRequest()); },
            [this, id](const absl::StatusOr<v1::ListModelsResponse>& models) {
              if (models.ok()) models_.assign(models->models().begin(), models->models().end());
              ReplyInitialize(id, AgentTakesImages(agents_, models_, options_.agent));
            });
      });
}

void AgentConnection::ReplyInitialize(const Json& id, bool images) {
  if (!initializing_ || !SameId(*initializing_, id)) return;  // cancelled meanwhile
  initializing_.reset();
  // Raw works with its own tools whatever fs/terminal the client offers.
  Json result = {
      {"protocolVersion", kAcpVersion},
      {"agentCapabilities",
       {{"loadSession", true},
        {"promptCapabilities", {{"image", images}, {"audio", false}, {"embeddedContext", true}}},
        {"mcpCapabilities", {{"http", true}, {"sse", false}}},
        {"sessionCapabilities",
         {{"list", Json::object()}, {"resume", Json::object()}, {"close", Json::object()}}}}},
      {"agentInfo", {{"name", "raw"}, {"title", "Raw"}, {"version", kVersion}}},
      {"authMethods", Json::array()}};
  rpc_.Reply(id, std::move(result));
}

// --- sessions ---

SessionBridge* AgentConnection::FindSession(const Json& id, const Json& params) {
  std::string session_id = StringParam(params, "sessionId");
  if (session_id.empty()) {
    rpc_.ReplyError(id, InvalidParams("\"sessionId\" must be a non-empty string"));
    return nullptr;
  }
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || closed_.count(session_id) != 0) {
    rpc_.ReplyError(id, {rpc_code::kResourceNotFound,
                         absl::StrCat("session ", session_id,
                                      " is not open on this connection (session/new, "
                                      "session/load or session/resume opens it)"),
                         {{"sessionId", session_id}}});
    return nullptr;
  }
  return it->second.get();
}

uint64_t AgentConnection::BeginOpen(const Json& id, std::string session_id) {
  const uint64_t open = next_open_++;
  opens_[open] = PendingOpen{id, std::move(session_id), false};
  return open;
}

size_t AgentConnection::OpenCount() const {
  size_t count = sessions_.size();
  for (const auto& [key, open] : opens_) {
    if (!open.bridged && (open.session_id.empty() || sessions_.count(open.session_id) == 0)) {
      ++count;
    }
  }
  return count;
}

bool AgentConnection::RefuseOverCap(const Json& id) {
  if (OpenCount() < kMaxOpenSessions) return false;
  rpc_.ReplyError(id, {rpc_code::kInvalidRequest,
                       absl::StrCat("this connection has ", kMaxOpenSessions,
                                    " sessions open or opening, the most raw-acp keeps open on one "
                                    "connection; close one (session/close) first"),
                       {{"maxSessions", kMaxOpenSessions}}});
  return true;
}

void AgentConnection::ShutDownBridge(const std::string& session_id, std::function<void()> then) {
  auto it = sessions_.find(session_id);
  // While the connection closes, Close() shuts every bridge down itself.
  if (it == sessions_.end() || closing_) {
    if (then) then();
    return;
  }
  const uint64_t close = ++closes_;
  closed_[session_id] = close;
  it->second->Shutdown([this, alive = alive_, session_id, close, then] {
    if (!*alive) return;
    // Not from within the bridge's own callback: after it has returned. The
    // bridge is dropped before `then` (the close's answer) runs, so a
    // request the client sends once it has the answer finds the room the
    // close made (the cap on open sessions).
    loop_.Post([this, alive, session_id, close, then] {
      if (!*alive) return;
      auto it = closed_.find(session_id);
      // (Not when opened again since, nor while the connection closes.)
      if (!closing_ && it != closed_.end() && it->second == close) {
        closed_.erase(it);
        sessions_.erase(session_id);
      }
      if (then) then();
    });
  });
}

void AgentConnection::NewSession(const Json& id, const Json& params) {
  absl::StatusOr<std::string> cwd = CwdParam(params, /*required=*/true);
  if (!cwd.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(cwd.status()));
    return;
  }
  auto servers = SessionMcpServers(params.value("mcpServers", Json::array()));
  if (!servers.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(servers.status()));
    return;
  }
  if (RefuseOverCap(id)) return;
  const uint64_t open = BeginOpen(id, "");
  WithServerNames(std::move(*servers), [this, open, cwd = *std::move(cwd)](
                                           std::vector<v1::SessionMcpServer> named) {
    if (opens_.count(open) == 0) return;  // cancelled
    v1::CreateSessionRequest request;
    request.set_agent(options_.agent);
    request.set_cwd(cwd);
    for (const v1::SessionMcpServer& s : named) *request.add_mcp_servers() = s;
    calls_.Call<v1::CreateSessionResponse>(
        [request](client::RawClient& c) { return c.CreateSession(request); },
        [this, open](const absl::StatusOr<v1::CreateSessionResponse>& created) {
          // Cancelled meanwhile: the session stays in rawd, closed.
          auto pending = opens_.find(open);
          if (pending == opens_.end()) return;
          if (!created.ok()) {
            Json id = pending->second.id;
            opens_.erase(pending);
            rpc_.ReplyError(id, ErrorFromStatus(created.status()));
            return;
          }
          StartBridge(open, created->session().id(), SessionBridge::Open::kCreated, {},
                      [](SessionBridge& b) {
                        return Json{{"sessionId", b.id()}};
                      });
        });
  });
}

void AgentConnection::OpenSession(const Json& id, const Json& params, SessionBridge::Open how) {
  absl::StatusOr<std::string> bounded_id = BoundedStringParam(params, "sessionId", kMaxTokenBytes);
  if (!bounded_id.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(bounded_id.status()));
    return;
  }
  std::string session_id = *std::move(bounded_id);
  if (session_id.empty()) {
    rpc_.ReplyError(id, InvalidParams("\"sessionId\" must be a non-empty string"));
    return;
  }
  // Checked, though rawd keeps the session's own directory.
  if (absl::StatusOr<std::string> cwd = CwdParam(params, /*required=*/true); !cwd.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(cwd.status()));
    return;
  }
  auto servers = SessionMcpServers(params.value("mcpServers", Json::array()));
  if (!servers.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(servers.status()));
    return;
  }
  // Opening a session open here already replaces its bridge: no more open.
  const bool open_here = sessions_.count(session_id) != 0 && closed_.count(session_id) == 0;
  if (!open_here && RefuseOverCap(id)) return;
  const uint64_t open = BeginOpen(id, session_id);
  WithServerNames(std::move(*servers),
                  [this, open, session_id, how](std::vector<v1::SessionMcpServer> named) {
                    StartBridge(open, session_id, how, std::move(named),
                                [](SessionBridge&) { return Json::object(); });
                  });
}

void AgentConnection::WithServerNames(std::vector<v1::SessionMcpServer> servers,
                                      std::function<void(std::vector<v1::SessionMcpServer>)> then) {
  if (servers.empty()) {
    then(std::move(servers));
    return;
  }
  calls_.Call<v1::ListMcpServersResponse>(
      [](client::RawClient& c) { return c.ListMcpServers(v1::ListMcpServersRequest()); },
      [servers, then](const absl::StatusOr<v1::ListMcpServersResponse>& listed) {
        std::set<std::string> configured;
        if (listed.ok()) {
          for (const v1::McpServerInfo& s : listed->servers()) {
            if (s.session_id().empty()) configured.insert(s.name());
          }
        } else {
          // rawd then refuses a name that clashes, with its own message.
          RAW_LOG(Warning) << "listing the configured MCP servers: " << listed.status();
        }
        std::vector<v1::SessionMcpServer> named = servers;
        AssignServerNames(named, std::move(configured));
        then(std::move(named));
      });
}

void AgentConnection::StartBridge(uint64_t open, const std::string& session_id,
                                  SessionBridge::Open how,
                                  std::vector<v1::SessionMcpServer> servers,
                                  std::function<Json(SessionBridge&)> answer) {
  auto pending = opens_.find(open);
  if (pending == opens_.end()) return;  // cancelled meanwhile
  const Json id = pending->second.id;
  auto refuse = [&](const std::string& why, Json data) {
    opens_.erase(pending);
    rpc_.ReplyError(id, {rpc_code::kInvalidRequest, why, std::move(data)});
  };
  // Opening a session again replaces its bridge, which would take a
  // running prompt (or a pending open) with it unanswered: refused instead,
  // the running work stays the client's to finish or cancel.
  const bool opening = std::any_of(opens_.begin(), opens_.end(), [&](const auto& other) {
    return other.second.bridged && other.second.session_id == session_id;
  });
  auto existing = sessions_.find(session_id);
  if (existing != sessions_.end() || opening) {
    const char* busy = opening ? "it is still being opened; wait for that answer"
                       : existing->second->prompting() ? "a prompt is running in it; cancel it "
                                                         "(session/cancel) or wait for its answer"
                                                       : nullptr;
    if (busy != nullptr) {
      refuse(absl::StrCat("session ", session_id,
                          " cannot be opened again on this connection now: ", busy),
             {{"sessionId", session_id}});
      return;
    }
  } else if (sessions_.size() >= kMaxOpenSessions) {
    refuse(absl::StrCat("this connection has ", kMaxOpenSessions,
                        " sessions open, the most raw-acp keeps open on one connection; close "
                        "one (session/close) first"),
           {{"maxSessions", kMaxOpenSessions}});
    return;
  }
  // Opening a session again replaces its (idle) bridge, which lets go.
  sessions_.erase(session_id);
  closed_.erase(session_id);
  pending->second.session_id = session_id;
  pending->second.bridged = true;
  // Every step checks that the open is still pending: a close or a cancel
  // may have answered it (and dropped the bridge) meanwhile.
  auto finish = [this, open, session_id, answer](const absl::Status& status) {
    auto pending = opens_.find(open);
    if (pending == opens_.end()) return;
    const Json id = pending->second.id;
    auto it = sessions_.find(session_id);
    if (!status.ok() || it == sessions_.end()) {
      opens_.erase(pending);
      RpcError error =
          ErrorFromStatus(status.ok() ? absl::CancelledError("the session was closed") : status);
      if (absl::IsNotFound(status)) {
        error.code = rpc_code::kResourceNotFound;
        error.data = {{"sessionId", session_id}};
      }
      rpc_.ReplyError(id, error);
      ShutDownBridge(session_id, nullptr);
      return;
    }
    SessionBridge& bridge = *it->second;
    WithConfigOptions(bridge.session(), [this, open, session_id, answer](Json) {
      auto pending = opens_.find(open);
      if (pending == opens_.end()) return;
      const Json id = pending->second.id;
      opens_.erase(pending);
      auto bridge = sessions_.find(session_id);
      if (bridge == sessions_.end()) {  // the connection is closing
        rpc_.ReplyError(id, ErrorFromStatus(absl::CancelledError("the session was closed")));
        return;
      }
      Json result = answer(*bridge->second);
      const std::string mode = CurrentMode(*bridge->second);
      result["modes"] = SessionModes(mode);
      result["configOptions"] = ConfigOptions(bridge->second->session(), agents_, models_, mode);
      bridge->second->set_told_mode(mode);
      rpc_.Reply(id, std::move(result));
      SendCommands(session_id);
    });
  };
  auto opened = [this, open, session_id, servers = std::move(servers),
                 finish](const absl::Status& status) {
    if (opens_.count(open) == 0) return;
    auto it = sessions_.find(session_id);
    if (!status.ok() || servers.empty() || it == sessions_.end()) {
      finish(status);
      return;
    }
    // The editor's MCP servers become the session's own in rawd. When
    // another client writes, the session opens all the same (following) and
    // they wait for the lease; no handover is asked for before a prompt.
    if (!it->second->can_write()) {
      it->second->SetMcpServersWhenWriting(servers);
      finish(absl::OkStatus());
      return;
    }
    v1::SetSessionMcpServersRequest request;
    request.set_session_id(session_id);
    request.set_lease_id(it->second->lease_id());
    for (const v1::SessionMcpServer& s : servers) *request.add_servers() = s;
    calls_.Call<v1::SetSessionMcpServersResponse>(
        [request](client::RawClient& c) { return c.SetSessionMcpServers(request); },
        [finish](const absl::StatusOr<v1::SetSessionMcpServersResponse>& r) {
          finish(r.status());
        });
  };
  sessions_[session_id] =
      std::make_unique<SessionBridge>(bridge_context_, session_id, how, std::move(opened));
}

void AgentConnection::WithConfigOptions(const v1::Session& session,
                                        std::function<void(Json)> then) {
  calls_.Call<v1::ListAgentsResponse>(
      [](client::RawClient& c) { return c.ListAgents(v1::ListAgentsRequest()); },
      [this, session, then](const absl::StatusOr<v1::ListAgentsResponse>& agents) {
        if (agents.ok()) agents_.assign(agents->agents().begin(), agents->agents().end());
        calls_.Call<v1::ListModelsResponse>(
            [](client::RawClient& c) { return c.ListModels(v1::ListModelsRequest()); },
            [this, session, then](const absl::StatusOr<v1::ListModelsResponse>& models) {
              if (models.ok()) models_.assign(models->models().begin(), models->models().end());
              then(ConfigOptions(session, agents_, models_, AgentMode(agents_, session.agent())));
            });
      });
}

void AgentConnection::TellSetup(const v1::Session& session, std::function<void()> done) {
  WithConfigOptions(session, [this, session, done](Json) {
    auto open = sessions_.find(session.id());
    if (open != sessions_.end()) {
      const std::string mode = open->second->approval_mode().empty()
                                   ? AgentMode(agents_, session.agent())
                                   : open->second->approval_mode();
      if (bridge_context_.newer_updates) {
        rpc_.Notify("session/update",
                    Json{{"sessionId", session.id()},
                         {"update",
                          {{"sessionUpdate", "config_option_update"},
                           {"configOptions", ConfigOptions(session, agents_, models_, mode)}}}});
      }
      if (mode != open->second->told_mode()) NotifyMode(session.id(), mode);
    }
    done();
  });
}

void AgentConnection::SendCommands(const std::string& session_id) {
  Json commands = Json::array({
      {{"name", "compact"}, {"description", "Summarize the older part of the model context"}},
      {{"name", "clear"},
       {"description", "Remove the conversation from the model context (the history stays)"}},
      {{"name", "stats"}, {"description", "Token usage and context size of this session"}},
      {{"name", "agent"},
       {"description", "List the agents, or choose one before the first prompt"},
       {"input", {{"hint", "agent name"}}}},
  });
  rpc_.Notify("session/update", Json{{"sessionId", session_id},
                                     {"update",
                                      {{"sessionUpdate", "available_commands_update"},
                                       {"availableCommands", std::move(commands)}}}});
}

void AgentConnection::ListSessions(const Json& id, const Json& params) {
  // Both go to rawd and wait in the calls on their way there.
  absl::StatusOr<std::string> cwd = CwdParam(params, /*required=*/false);
  absl::StatusOr<std::string> cursor = BoundedStringParam(params, "cursor", kMaxTokenBytes);
  for (const absl::StatusOr<std::string>* param : {&cwd, &cursor}) {
    if (!param->ok()) {
      rpc_.ReplyError(id, ErrorFromStatus(param->status()));
      return;
    }
  }
  ListPage(id, *cwd, *cursor, Json::array(), 0);
}

void AgentConnection::ListPage(const Json& id, const std::string& cwd, const std::string& token,
                               Json sessions, int pages) {
  v1::ListSessionsRequest request;
  request.set_page_size(kListPageSize);
  request.set_page_token(token);
  // The daemon's query (a substring of the directory or the title) leaves
  // mostly the directory's sessions; the exact match is made here.
  request.set_query(cwd);
  calls_.Call<v1::ListSessionsResponse>(
      [request](client::RawClient& c) { return c.ListSessions(request); },
      [this, id, cwd, sessions = std::move(sessions),
       pages](const absl::StatusOr<v1::ListSessionsResponse>& page) mutable {
        if (!page.ok()) {
          rpc_.ReplyError(id, ErrorFromStatus(page.status()));
          return;
        }
        for (const v1::Session& s : page->sessions()) {
          if (!cwd.empty() && s.cwd() != cwd) continue;
          Json info = {{"sessionId", s.id()}, {"cwd", s.cwd()}};
          if (!s.title().empty()) info["title"] = s.title();
          int64_t updated =
              s.last_activity_unix_ms() > 0 ? s.last_activity_unix_ms() : s.created_at_unix_ms();
          if (updated > 0) info["updatedAt"] = IsoTime(updated);
          sessions.push_back(std::move(info));
        }
        // A page the filter thinned out is filled from the next daemon
        // pages (a few at most per answer; the cursor goes on from there).
        const std::string& next = page->next_page_token();
        if (!next.empty() && sessions.size() < static_cast<size_t>(kListPageSize) &&
            pages + 1 < kListMaxDaemonPages) {
          ListPage(id, cwd, next, std::move(sessions), pages + 1);
          return;
        }
        Json result = {{"sessions", std::move(sessions)}};
        if (!next.empty()) result["nextCursor"] = next;
        rpc_.Reply(id, std::move(result));
      });
}

void AgentConnection::CloseSession(const Json& id, const Json& params) {
  SessionBridge* bridge = FindSession(id, params);
  if (!bridge) return;
  std::string session_id = bridge->id();
  // An open of the session still to be answered is answered first: the
  // close wins, and the open must not go unanswered.
  for (auto it = opens_.begin(); it != opens_.end();) {
    if (!it->second.bridged || it->second.session_id != session_id) {
      ++it;
      continue;
    }
    rpc_.ReplyError(it->second.id,
                    {rpc_code::kRequestCancelled,
                     absl::StrCat("session ", session_id,
                                  " was closed (session/close) before it finished opening"),
                     {{"sessionId", session_id}}});
    it = opens_.erase(it);
  }
  ShutDownBridge(session_id, [this, id] { rpc_.Reply(id, Json::object()); });
}

void AgentConnection::SetConfigOption(const Json& id, const Json& params) {
  SessionBridge* bridge = FindSession(id, params);
  if (!bridge) return;
  // Only what the option needs waits for the agents and models: never the
  // whole params, which may carry anything the client chose to add.
  absl::StatusOr<Json> choice = ConfigChoice(params);
  if (!choice.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(choice.status()));
    return;
  }
  std::string session_id = bridge->id();
  WithConfigOptions(bridge->session(), [this, id, choice = *std::move(choice), session_id](Json) {
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) {
      rpc_.ReplyError(id, ErrorFromStatus(absl::CancelledError("the session was closed")));
      return;
    }
    auto request = ConfigureRequest(choice, agents_, models_);
    if (!request.ok()) {
      rpc_.ReplyError(id, ErrorFromStatus(request.status()));
      return;
    }
    if (absl::Status s = it->second->CheckWrite(); !s.ok()) {
      rpc_.ReplyError(id, ErrorFromStatus(s));
      return;
    }
    request->set_session_id(session_id);
    request->set_lease_id(it->second->lease_id());
    if (request->has_approval_mode()) {
      ConfigureMode(id, session_id, *request, [this, id](const v1::ConfigureSessionResponse& r) {
        rpc_.Reply(id, Json{{"configOptions",
                             ConfigOptions(r.session(), agents_, models_, r.approval_mode())}});
      });
      return;
    }
    calls_.Call<v1::ConfigureSessionResponse>(
        [request = *request](client::RawClient& c) { return c.ConfigureSession(request); },
        [this, id, session_id](const absl::StatusOr<v1::ConfigureSessionResponse>& r) {
          if (!r.ok()) {
            rpc_.ReplyError(id, ErrorFromStatus(r.status()));
            return;
          }
          if (auto open = sessions_.find(session_id); open != sessions_.end()) {
            open->second->Refresh();
          }
          rpc_.Reply(id, Json{{"configOptions",
                               ConfigOptions(r->session(), agents_, models_, ConfiguredMode(*r))}});
          // Another agent may bring another approval mode with it.
          TellConfigured(session_id, *r, /*update_options=*/false);
        });
  });
}

void AgentConnection::SetMode(const Json& id, const Json& params) {
  SessionBridge* bridge = FindSession(id, params);
  if (!bridge) return;
  absl::StatusOr<std::string> mode =
      CheckModeId(params.contains("modeId") ? params["modeId"] : Json());
  if (!mode.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(mode.status()));
    return;
  }
  if (absl::Status s = bridge->CheckWrite(); !s.ok()) {
    rpc_.ReplyError(id, ErrorFromStatus(s));
    return;
  }
  v1::ConfigureSessionRequest request;
  request.set_session_id(bridge->id());
  request.set_lease_id(bridge->lease_id());
  request.set_approval_mode(*mode);
  ConfigureMode(
      id, bridge->id(), std::move(request),
      [this, id](const v1::ConfigureSessionResponse&) { rpc_.Reply(id, Json::object()); });
}

void AgentConnection::ConfigureMode(const Json& id, const std::string& session_id,
                                    v1::ConfigureSessionRequest request,
                                    std::function<void(const v1::ConfigureSessionResponse&)> then) {
  calls_.Call<v1::ConfigureSessionResponse>(
      [request](client::RawClient& c) { return c.ConfigureSession(request); },
      [this, id, session_id, then](const absl::StatusOr<v1::ConfigureSessionResponse>& r) {
        if (!r.ok()) {
          rpc_.ReplyError(id, ErrorFromStatus(r.status()));
          return;
        }
        auto open = sessions_.find(session_id);
        if (open != sessions_.end()) open->second->set_approval_mode(r->approval_mode());
        then(*r);
        NotifyMode(session_id, r->approval_mode());
      });
}

std::string AgentConnection::ConfiguredMode(const v1::ConfigureSessionResponse& r) const {
  // The answer's mode, not the bridge's copy of the session, which is
  // refreshed later: an agent change also changes the agent's own mode.
  return r.approval_mode().empty() ? AgentMode(agents_, r.session().agent()) : r.approval_mode();
}

void AgentConnection::TellConfigured(const std::string& session_id,
                                     const v1::ConfigureSessionResponse& r, bool update_options) {
  auto open = sessions_.find(session_id);
  if (open == sessions_.end()) return;
  const std::string mode = ConfiguredMode(r);
  if (update_options && bridge_context_.newer_updates) {
    rpc_.Notify("session/update",
                Json{{"sessionId", session_id},
                     {"update",
                      {{"sessionUpdate", "config_option_update"},
                       {"configOptions", ConfigOptions(r.session(), agents_, models_, mode)}}}});
  }
  // Compared with what the client was told, not with the bridge's copy of
  // the session, which may not show an earlier change yet.
  if (mode != open->second->told_mode()) NotifyMode(session_id, mode);
}

void AgentConnection::NotifyMode(const std::string& session_id, const std::string& mode) {
  if (auto open = sessions_.find(session_id); open != sessions_.end()) {
    open->second->set_told_mode(mode);
  }
  rpc_.Notify(
      "session/update",
      Json{{"sessionId", session_id},
           {"update", {{"sessionUpdate", "current_mode_update"}, {"currentModeId", mode}}}});
}

std::string AgentConnection::CurrentMode(const SessionBridge& bridge) const {
  if (!bridge.approval_mode().empty()) return bridge.approval_mode();
  return AgentMode(agents_, bridge.session().agent());
}

void AgentConnection::Close(std::function<void()> done) {
  if (closing_) return;
  closing_ = true;
  if (sessions_.empty()) {
    done();
    return;
  }
  auto remaining = std::make_shared<size_t>(sessions_.size());
  for (auto& [session_id, bridge] : sessions_) {
    bridge->Shutdown([this, alive = alive_, remaining, done] {
      if (--*remaining > 0 || !*alive) return;
      // Every lease goes with its bridge.
      loop_.Post([this, alive, done] {
        if (!*alive) return;
        sessions_.clear();
        done();
      });
    });
  }
}

}  // namespace raw::acp
