// SessionManager: the domain facade the API layer calls. Owns the running
// sessions (one SessionRunner each, created on first use) and routes every
// operation to them. Thread-safe: every method may be called from any
// thread (gRPC callback threads).
//
// A session whose stored rows do not all decode (a damaged event or model
// context item) stays readable: GetSession, ListSessions, GetStats,
// Subscribe and GetHistory work, except that a history page (or a replay)
// that includes a damaged row fails with kDataLoss naming the session and
// the row, and GetSession/GetStats omit the context estimate when the model
// context does not read. The writes (StartTurn, Compact, ClearContext,
// RespondToApproval) are refused while the session's newest history (back to
// the last turn boundary, see SessionRunner::RecoverUnfinishedTurn) or its
// model context does not read, with the cause's code (kDataLoss for a
// damaged row) and a message naming the session and the row:
//   session S cannot be written: its history could not be read: session S,
//   event seq N: stored payload does not decode: ...
// Each write retries first, so a transient failure or a repaired row lets
// writes resume without a restart. Nothing stored is changed or removed
// because of a damaged row.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cancel_token.h"
#include "common/paths.h"
#include "common/time.h"
#include "common/worker_pool.h"
#include "daemon/config/config_file_cache.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/session_mcp_servers.h"
#include "daemon/events/session_event.h"
#include "daemon/http/http_client.h"
#include "daemon/loop/session_runner.h"
#include "daemon/loop/subscription.h"
#include "daemon/loop/turn.h"
#include "daemon/loop/write_leases.h"
#include "daemon/mcp/mcp_manager.h"
#include "daemon/packages/package_list.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"
#include "daemon/vars/variable_store.h"

namespace raw::loop {

struct SessionInfo {
  store::SessionRecord record;
  std::string model;     // model entry the agent resolves to now ("" if it does not resolve)
  std::string model_id;  // provider model id
  bool running = false;  // a turn or a compaction is in progress
  bool compacting = false;
  std::optional<LeaseHolderInfo> writer;  // the write lease holder, if any
  int64_t expires_at_unix_ms = 0;  // 0 = never
  // Only for a single session (GetSession, GetStats): listing never loads
  // a session's context.
  std::optional<events::ContextEstimate> context;
  // Only for GetStats of a loaded session: Raw's own overhead per step.
  std::optional<OverheadSummary> overhead;
};

// The configured agents (by name) and the one an empty agent name selects.
struct AgentCatalog {
  std::vector<config::AgentConfig> agents;
  std::string default_agent;
};

// A ConfigureSession answer: the session, and the approval mode of the
// turns the configuring lease starts.
struct ConfiguredSession {
  SessionInfo session;
  std::string approval_mode;
};

struct ConfigCheck {
  std::string path;
  bool exists = false;
  std::vector<std::string> errors;  // "<path>: <message>"
};

struct PluginSettingsView {
  store::PluginSettings stored;
  // JSON texts; "" for a namespace the daemon does not know.
  std::string schema_json;
  std::string config_values_json;
  // Section, or "section.field", -> why its overrides are not in effect now
  // (config::RavenInactiveSections, and the fields ApplyRavenOverridesByField
  // dropped); empty for other namespaces.
  std::map<std::string, std::string> inactive_sections;
};

struct PackageListing {
  std::string index_path;
  std::vector<packages::ListedPackage> packages;
};

struct SessionManagerDeps {
  store::SessionStore& store;
  http::HttpClient& http;
  const tools::ToolRegistry& tools;
  const Clock& clock;
  EnvLookup env;
  std::string config_path;
  // Used to find the local server for the default agent.
  config::ServerProbe probe;
  // Config variables (API keys, headers, MCP environments) and secret
  // redaction of stored tool output; null = no variables can be used.
  vars::VariableStore* variables = nullptr;
  // The daemon's MCP connections; null = agents get no MCP tools.
  mcp::McpManager* mcp = nullptr;
  // How long after the start a follower that lost its connection waits for
  // the client that wrote before to take its session back
  // (WhenHeld::kRejoinFollowing): clients retry their connection at most
  // 5 s apart.
  absl::Duration restart_grace = absl::Seconds(10);
};

class SessionManager {
 public:
  explicit SessionManager(SessionManagerDeps deps);
  ~SessionManager();

  // Resolves the agent (unknown agent or unusable model is an error, and no
  // session is created); `cwd` must be an absolute existing directory.
  // Resolving may probe a local server or run a variable's command: it runs
  // on the worker pool and replies when done.
  //
  // `model` ("" = the agent's own) must be a defined model entry
  // (kInvalidArgument otherwise); it is stored as the session's model (see
  // ConfigureSession). `mcp_servers` become the session's own servers (see
  // SetSessionMcpServers; kInvalidArgument naming the entry "mcp_servers[i]"
  // when one is invalid, and then no session is created).
  void CreateSession(std::string agent, std::string cwd, std::string model,
                     std::vector<config::SessionMcpServerSpec> mcp_servers,
                     Reply<SessionInfo> reply);
  // With `with_context` false, the context estimate is left out unless the
  // session's model context is in memory already, and nothing is loaded.
  absl::StatusOr<SessionInfo> GetSession(const std::string& id, bool with_context = true);
  // GetSession for the API, whose handlers never wait on slow work: on the
  // worker pool (an estimate waits for the runner's lock, which a commit
  // holds while the store's writer serves other sessions). A session not
  // loaded yet is loaded to estimate its context (unless
  // `with_context` is false), which reads its whole model context (tens of
  // milliseconds at 100,000 items) and closes a turn a crash left open.
  void GetSession(std::string id, bool with_context, Reply<SessionInfo> reply);
  // `query` (may be empty) as store::SessionStore::ListSessions.
  absl::StatusOr<std::vector<SessionInfo>> ListSessions(int page_size,
                                                        const std::string& page_token,
                                                        std::string* next_page_token,
                                                        const std::string& query = "");
  // Removes the session with its history and context, and unloads it. A
  // write: refused (kFailedPrecondition) unless `lease_id` holds the
  // session's lease, and while a turn or compaction runs; it is allowed
  // while the history does not read (a damaged session can be removed).
  // Subscribers see no more events; later calls find no session. The
  // session's write lease and every request waiting for it end with
  // kNotFound ("session S was deleted; its write lease ended").
  void DeleteSession(const std::string& session_id, std::string lease_id, StatusReply reply);

  // Plugin settings, kept in the store (store::SessionStore). The write runs
  // on the worker pool and replies from there. For a namespace the daemon
  // knows (Raven's card, config/raven_overrides.h) the settings are checked
  // against the config before they are written (kInvalidArgument naming
  // each problem), and reading them also gives their schema and the values
  // the config file gives them now.
  absl::StatusOr<PluginSettingsView> GetPluginSettings(const std::string& ns);
  void SetPluginSettings(std::string ns, std::string settings_json, int64_t expected_revision,
                         Reply<store::PluginSettings> reply);

  // The write lease (write_leases.h). Every lease change is a command on
  // the session's queue (SessionRunner::AcquireLease and the others), in
  // order with the session's writes; the answer, and the lease's callbacks,
  // come from there, so no caller waits. Acquire loads the session (its
  // lookup error, kNotFound, is the answer). It is granted also while the
  // session cannot be written (see above): the lease itself stores nothing;
  // the holder's writes are refused with the specific error (each retrying
  // the read first), which a client shows where the user wrote, and they
  // resume once the row reads without the lease being asked for again.
  // Release and CancelLeaseWait answer nobody: they run even after the
  // caller is gone (the runner's queue holds what they need).
  void AcquireLease(const std::string& session_id, LeaseClient client, WhenHeld when_held,
                    LeaseCallbacks callbacks, SessionRunner::LeaseReply reply);
  void ReleaseLease(const std::string& session_id, std::string lease_id);
  void CancelLeaseWait(const std::string& session_id, std::string wait_id);
  // Replies with how many waiting requests were declined.
  void DeclineHandover(const std::string& session_id, std::string lease_id, Reply<int> reply);

  // The writes: each is a command on the session's queue (SessionRunner)
  // and replies when it has run. Each is refused with kFailedPrecondition
  // unless `lease_id` holds the session's write lease (the message names
  // the holder), and, naming the damaged row, while the session cannot be
  // written (see above); InterruptTurn writes nothing itself and is never
  // refused for that.

  // Replies with the turn id once the turn started. kFailedPrecondition
  // while another turn of the session runs; config problems (the agent no
  // longer resolves, a missing key variable) are reported here, before any
  // event is recorded.
  // `images` go with the text (SessionRunner::StartTurn checks them); the
  // text may be empty only when there are images.
  // `turn_id`: the id the client chose (SessionRunner::StartTurn), or "".
  void StartTurn(const std::string& session_id, std::string text, std::string lease_id,
                 Reply<std::string> reply, std::vector<events::ImageUpload> images = {},
                 std::string turn_id = "");
  // Interrupts the running turn or compaction; false when none was running.
  // With `operation_id`, only that one (SessionRunner::Interrupt).
  void InterruptTurn(const std::string& session_id, std::string lease_id, Reply<bool> reply,
                     std::string operation_id = "");
  // Interrupts the running turn or compaction only if it was started under
  // `lease_id` (SessionRunner::Interrupt with only_own): for a lease that
  // ends with AcquireLeaseRequest.interrupt_on_release.
  void InterruptOwnOperation(const std::string& session_id, std::string lease_id,
                             Reply<bool> reply);
  // Answers the session's pending approval request (see ApprovalBroker).
  void RespondToApproval(const std::string& session_id, std::string request_id,
                         std::vector<events::ApprovalAnswer> answers,
                         std::optional<events::ApprovalAnswer> all, std::string lease_id,
                         StatusReply reply);
  // Starts a manual compaction in the background; replies with its
  // operation id.
  void Compact(const std::string& session_id, std::string lease_id, Reply<std::string> reply,
               std::string operation_id = "");
  // Clears the model context; replies with the estimate after.
  void ClearContext(const std::string& session_id, std::string lease_id,
                    Reply<events::ContextEstimate> reply);
  // Replaces the session's own MCP servers. They are checked against the
  // config of the moment (config::CheckSessionMcpServers: kInvalidArgument
  // naming the entry "servers[i]") before the lease. They live in memory
  // only (never stored: their env and headers may hold secrets), are
  // selected by the agent's tools.use like configured servers, and apply
  // from the next turn (or compaction, or estimate); a running turn keeps
  // the tools it started with. Servers no longer in the set (or changed)
  // are stopped at once; unchanged ones keep running. They all stop when
  // the session is unloaded (UnloadIdle) or the daemon stops.
  void SetSessionMcpServers(const std::string& session_id, std::string lease_id,
                            std::vector<config::SessionMcpServerSpec> servers,
                            StatusReply reply);
  // Changes the session's agent and/or its model (nullopt: unchanged) and
  // replies with the session as it is then. Refused (kFailedPrecondition)
  // while a turn or compaction runs, and for a different agent once the
  // session has history (its first message is recorded). `agent` ("" = the
  // default agent) must be a defined agent (kNotFound, as CreateSession);
  // `model` a defined model entry (kInvalidArgument), or "" for the agent's
  // own model. The model is stored with the session and used from the next
  // request on; the agent's model is not changed.
  // `approval_mode` (a config approval_mode name; "" = the agent's own) is
  // the mode of the turns `lease_id` starts from then on (SessionRunner::
  // ChooseApprovalMode): kInvalidArgument for an unknown name,
  // kFailedPrecondition for any other mode when the agent is configured
  // deny_all. Alone, it does not wait for (nor is refused by) a running turn.
  void ConfigureSession(const std::string& session_id, std::string lease_id,
                        std::optional<std::string> agent, std::optional<std::string> model,
                        std::optional<std::string> approval_mode,
                        Reply<ConfiguredSession> reply);
  // The session with its usage totals and coverage and the context estimate.
  absl::StatusOr<SessionInfo> GetStats(const std::string& session_id);
  // GetStats on the worker pool, as GetSession above.
  void GetStats(std::string session_id, Reply<SessionInfo> reply);

  // Finishes any removal that was cut short, then removes sessions past
  // sessions.expire_after_days (when it is positive); returns how many
  // sessions went. A removed session is forgotten as DeleteSession does:
  // its running operation is cancelled, its runner and MCP servers go, and
  // its lease holder and waiters are told kNotFound. A session whose rows
  // cannot be deleted stops no other: after doing all it could, the call
  // returns an error naming each session it could not remove (they stay
  // hidden and are tried again next time). Called from outside the worker
  // pool (it may wait for a cancelled operation to end).
  absl::StatusOr<size_t> PurgeExpired();

  // These two load the session and run its recovery on the calling thread
  // when it is not loaded yet (Runner): for callers that may wait for the
  // store. The API uses the overloads with a reply below.
  absl::StatusOr<std::unique_ptr<Subscription>> Subscribe(const std::string& session_id,
                                                          uint64_t after_seq);
  absl::StatusOr<store::HistoryPage> GetHistory(const std::string& session_id,
                                                const std::string& cursor, int limit,
                                                store::HistoryDirection direction);
  // The same for an API thread: on the spot when the session is loaded and
  // past its recovery, otherwise on the worker pool, which loads it first;
  // the reply comes from there.
  void Subscribe(std::string session_id, uint64_t after_seq,
                 Reply<std::unique_ptr<Subscription>> reply);
  void GetHistory(std::string session_id, std::string cursor, int limit,
                  store::HistoryDirection direction, Reply<store::HistoryPage> reply);

  // From the config file as it is now; an unusable file is an error.
  absl::StatusOr<AgentCatalog> ListAgents();
  // Every server under mcp_servers, as configured now, with the state of its
  // connection (stopped when there is none), then the servers agents take
  // from a package directly (packages::ResolvedMcpServers::agent_servers),
  // then the own servers of each loaded session (by session id, then name;
  // McpServerStatus::session_id set). Never starts a server. Read on the
  // worker pool (a server defined with "from", and an agent's preset, lead
  // to package store entries, whose files are scanned); replies from there.
  void ListMcpServers(Reply<std::vector<mcp::McpServerStatus>> reply);
  // The model entries of the config file as it is now, by name.
  absl::StatusOr<std::vector<config::ModelConfig>> ListModels();

  // The packages of the config file's index (packages::List), read on the
  // worker pool (it scans each store entry's files); replies from there.
  void ListPackages(Reply<PackageListing> reply);

  // Checks the config file at `path` ("" = the daemon's): its own
  // problems, then each agent's (loop::CheckAgents). On the worker pool (the
  // check reads the package store entries and skill folders the agents
  // use); replies from there.
  void CheckConfig(std::string path, Reply<ConfigCheck> reply);
  const std::string& config_path() const { return deps_.config_path; }

  // Sessions loaded in memory now.
  size_t loaded_sessions();
  // Unloads every session idle for at least `idle` (no operation, no queued
  // command (a lease command included), no subscriber, no lease held or
  // awaited, no caller holding it); returns how many. The manager's own sweeper calls it with
  // sessions.idle_unload_seconds; exposed for tests.
  size_t UnloadIdle(absl::Duration idle);

  // Interrupts every running turn and compaction, and refuses new writes,
  // in every session at once, and abandons the operations being prepared,
  // ending what their preparation waits on (a variable command: it cancels
  // the VariableStore's commands for good; the wait for MCP servers to
  // start); then waits until each has recorded its end.
  void Shutdown();

 private:
  struct Loaded {
    std::shared_ptr<SessionRunner> runner;
    int64_t last_used_unix_ms = 0;
  };

  // What ListMcpServers and CheckConfig reply, on the calling thread.
  absl::StatusOr<std::vector<mcp::McpServerStatus>> ListMcpServersNow();
  ConfigCheck CheckConfigNow(const std::string& path);

  // The session's runner, loaded on first use; kNotFound when the session
  // does not exist. Each call first lets the runner close a turn left
  // unfinished by a crash (RecoverUnfinishedTurn; a failure there does not
  // fail this call, the runner refuses writes instead).
  absl::StatusOr<std::shared_ptr<SessionRunner>> Runner(const std::string& session_id);
  // The loaded runner, if any (never loads).
  std::shared_ptr<SessionRunner> LoadedRunner(const std::string& session_id);
  // After the store removed the session: unloads its runner (which refuses
  // every later lease command and write with kNotFound `why`,
  // SessionRunner::MarkRemoved), stops its MCP servers and ends its lease
  // and every waiting request with kNotFound `why`. `on_queue`: called by a command on the
  // session's queue (the runner is idle there); otherwise the runner is shut down first, which
  // cancels a running operation and waits for it to end.
  void ForgetRemovedSession(const std::string& session_id, const std::string& why, bool on_queue);
  // The plan of the session's agent as configured now.
  // `session_servers`: the session's own MCP servers.
  // `package_check`: kTrust only for a plan that runs and stores nothing
  // (EstimateFor), which must stay cheap enough for an API thread.
  absl::StatusOr<TurnPlan> PlanFor(
      const store::SessionRecord& record, const McpServerMap& session_servers, PlanPurpose purpose,
      const std::string& user_text,
      packages::EntryCheck package_check = packages::EntryCheck::kRehash);
  std::optional<events::ContextEstimate> EstimateFor(const store::SessionRecord& record);
  // The config file as it is now (read at every call, parsed again only
  // when it changed: config/config_file_cache.h).
  absl::StatusOr<config::Config> LoadConfig();
  absl::StatusOr<SessionInfo> CreateSessionNow(
      const std::string& agent, const std::string& cwd, const std::string& model,
      const std::vector<config::SessionMcpServerSpec>& mcp_servers);
  // The approval_mode of the session's agent as configured now.
  absl::StatusOr<config::ApprovalMode> AgentApprovalMode(const std::string& session_id);
  // ConfigureSession with an approval_mode alone.
  void ChooseApprovalMode(const std::string& session_id, std::string lease_id,
                          std::optional<std::string> approval_mode,
                          Reply<ConfiguredSession> reply);
  // The mode named `name` ("" = the agent's own: nullopt) for a session
  // whose agent is configured with `agent_mode`: kInvalidArgument for an
  // unknown name, kFailedPrecondition for leaving deny_all.
  static absl::StatusOr<std::optional<config::ApprovalMode>> CheckModeChoice(
      const std::string& session_id, config::ApprovalMode agent_mode, const std::string& name);
  // Applies a ConfigureSession change (on the session's queue, idle).
  // `check_mode` gets the configured mode of the agent the session runs
  // after the change, before anything is stored; its error stores nothing.
  absl::Status ApplyConfiguration(
      const std::string& session_id, const std::optional<std::string>& agent,
      const std::optional<std::string>& model,
      const std::function<absl::Status(config::ApprovalMode)>& check_mode);
  // The model a session shows: {entry name, provider model id}, both
  // empty when the agent does not resolve without a probe.
  using ShownModel = std::pair<std::string, std::string>;
  // Shown models by (agent, chosen model), so that a page of sessions
  // resolves each pair once.
  using ShownModels = std::map<std::pair<std::string, std::string>, ShownModel>;
  // `cfg` may be null (unreadable config): the model is then left empty.
  // Runs on API threads: it reads the packages the agent uses without
  // re-hashing them (packages::EntryCheck::kTrust), so it never reads a
  // package's whole contents. `shown` (may be null) carries what earlier
  // calls for the same config resolved.
  SessionInfo Describe(const store::SessionRecord& record, const SessionRunner* runner,
                       const config::Config* cfg, ShownModels* shown = nullptr);
  // The loaded runner when it may be used on the spot: loaded and past its
  // crash recovery (SessionRunner::recovered_now); nullptr otherwise. Never
  // reads the store and never waits for a recovery under way.
  std::shared_ptr<SessionRunner> ReadyRunner(const std::string& session_id);
  // Runs `fn` with the session's runner, or replies its lookup error. On the
  // caller's thread when the runner is ready (ReadyRunner); otherwise on the
  // worker pool, which loads the runner and runs its recovery first (Runner):
  // both read the store, and a recovery commits, which no API thread waits
  // for. `fn` holds what it needs by value, as it may run after the caller
  // returned.
  template <typename R>
  void WithRunner(const std::string& session_id, const R& reply,
                  std::function<void(SessionRunner&)> fn);
  // Unloads idle sessions every so often until Shutdown.
  void SweepLoop();
  // The restart grace is over: each session whose free lease a rejoining
  // follower waits for is granted to it (WriteLeases::EndReservation).
  void EndRestartGrace();
  // The first time a client creates, opens or prompts a session, has the
  // HTTP client prepared on the worker pool (http::HttpClient::Prepare), in
  // parallel with what comes before the session's first request: rawd loads
  // libcurl only then, and the load takes a few milliseconds.
  void PrepareHttp();

  SessionManagerDeps deps_;
  config::ConfigFileCache config_cache_;
  WriteLeases leases_{deps_.clock};
  // Declared after what its tasks use and before the runners: destroyed
  // (joined) before the manager's other members.
  WorkerPool pool_{"rawd-sessions"};
  // Set once the HTTP client was asked to prepare (PrepareHttp).
  std::atomic<bool> http_prepared_{false};
  absl::Mutex mu_;
  std::map<std::string, Loaded> runners_ ABSL_GUARDED_BY(mu_);
  // Counts ForgetRemovedSession calls: a first load that read its record
  // before a removal and would add its runner after it reads again.
  uint64_t removals_ ABSL_GUARDED_BY(mu_) = 0;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  // When the restart grace ends (SweepLoop ends it once).
  absl::Time grace_end_ ABSL_GUARDED_BY(mu_);
  bool grace_over_ ABSL_GUARDED_BY(mu_) = false;
  // Cancelled when Shutdown begins; a plan's waits (for MCP servers to
  // start: TurnPlanInputs::cancel) end on it.
  std::shared_ptr<CancelToken> shutdown_ = std::make_shared<CancelToken>();
  // sessions.max_live_bytes as last read (at start, then by the sweeper),
  // for the runners loaded next.
  std::atomic<int64_t> max_live_bytes_{config::SessionSettings{}.max_live_bytes};
  std::thread sweeper_;
};

}  // namespace raw::loop
