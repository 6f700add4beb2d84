#include "daemon/loop/session_manager.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "common/ids.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/loop/session_runner.h"
#include "daemon/loop/turn_planner.h"
#include "daemon/vars/redact.h"

namespace raw::loop {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

SessionManager::SessionManager(SessionManagerDeps deps) : deps_(std::move(deps)) {}

SessionManager::~SessionManager() { Shutdown(); }

absl::StatusOr<config::Config> SessionManager::LoadConfig() {
  return config::LoadConfigFile(deps_.config_path);
}

SessionInfo SessionManager::Describe(const store::SessionRecord& record,
                                     const SessionRunner* runner, const config::Config* cfg) {
  SessionInfo info;
  info.record = record;
  info.running = runner != nullptr && runner->running();
  info.compacting = runner != nullptr && runner->compacting();
  info.writer = leases_.Holder(record.id);
  if (cfg != nullptr) {
    info.expires_at_unix_ms = store::ExpiresAt(record, cfg->sessions.expire_after_days);
  }
  // Describing never probes the network: an agent that would need the
  // local-server probe to resolve shows no model until a turn resolves it.
  if (cfg != nullptr) {
    auto resolved = config::ResolveAgent(*cfg, record.agent, deps_.env,
                                         [](const std::string&) { return false; });
    if (resolved.ok()) {
      info.model = resolved->model.name;
      info.model_id = resolved->model.model_id;
    }
  }
  return info;
}

absl::StatusOr<SessionInfo> SessionManager::CreateSession(const std::string& agent,
                                                          const std::string& cwd) {
  if (cwd.empty() || cwd[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("cwd must be an absolute directory path, got \"", cwd, "\""));
  }
  if (!IsDirectory(cwd)) {
    return absl::InvalidArgumentError(absl::StrCat("cwd ", cwd, " is not an existing directory"));
  }
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  ASSIGN_OR_RETURN(config::ResolvedAgent resolved,
                   config::ResolveAgent(cfg, agent, deps_.env, deps_.probe));
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the daemon is shutting down");
  }
  store::SessionRecord record;
  record.id = NewId();
  record.agent = resolved.agent.name;
  record.cwd = cwd;
  record.created_at_unix_ms = deps_.clock.NowUnixMs();
  record.last_activity_unix_ms = record.created_at_unix_ms;
  RETURN_IF_ERROR(deps_.store.CreateSession(record));
  RAW_LOG(Info) << "session " << record.id << " created (agent " << record.agent << ", cwd "
                << cwd << ")";
  SessionInfo info;
  info.record = record;
  info.model = resolved.model.name;
  info.model_id = resolved.model.model_id;
  return info;
}

absl::StatusOr<SessionRunner*> SessionManager::Runner(const std::string& session_id) {
  SessionRunner* runner = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = runners_.find(session_id); it != runners_.end()) runner = it->second.get();
  }
  if (runner == nullptr) {
    ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
    absl::MutexLock lock(&mu_);
    auto it = runners_.find(session_id);
    if (it == runners_.end()) {
      SessionLog::Redactor redact;
      if (deps_.variables != nullptr) {
        redact = [variables = deps_.variables](const std::string& text) {
          return vars::Redact(text, variables->SecretValues());
        };
      }
      auto created = std::make_unique<SessionRunner>(record, deps_.store, deps_.clock, redact);
      it = runners_.emplace(session_id, std::move(created)).first;
    }
    runner = it->second.get();
  }
  // Every caller comes through here, and the runner serializes the attempts:
  // no one reads or writes before a turn left unfinished by a crash is
  // closed, whenever that succeeds. Until it does, reads go on (each call
  // retries, cheaply: one page of the newest history) and writes are
  // refused by the runner (CheckWritable).
  runner->RecoverUnfinishedTurn().IgnoreError();
  return runner;
}

absl::StatusOr<SessionInfo> SessionManager::GetSession(const std::string& id) {
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(id));
  const SessionRunner* runner = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = runners_.find(id); it != runners_.end()) runner = it->second.get();
  }
  auto cfg = LoadConfig();
  SessionInfo info = Describe(record, runner, cfg.ok() ? &*cfg : nullptr);
  info.context = EstimateFor(record, nullptr);
  return info;
}

absl::StatusOr<AgentCatalog> SessionManager::ListAgents() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  AgentCatalog catalog;
  for (const auto& [name, agent] : cfg.agents) catalog.agents.push_back(agent);
  catalog.default_agent = cfg.default_agent.empty() ? config::kDefaultAgentName : cfg.default_agent;
  return catalog;
}

absl::StatusOr<std::vector<mcp::McpServerStatus>> SessionManager::ListMcpServers() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  if (deps_.mcp == nullptr) {
    std::vector<mcp::McpServerStatus> statuses;
    for (const auto& [name, server] : cfg.mcp_servers) {
      config::McpServerConfig named = server;
      named.name = name;
      statuses.push_back(mcp::StoppedStatus(named));
    }
    return statuses;
  }
  return deps_.mcp->StatusOf(cfg.mcp_servers);
}

absl::StatusOr<TurnPlan> SessionManager::PlanFor(const store::SessionRecord& record,
                                                 bool with_providers) {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  // Without providers nothing is sent, so nothing may probe the network.
  const config::ServerProbe no_probe = [](const std::string&) { return false; };
  TurnPlanInputs inputs{cfg,       record,      "", deps_.tools, deps_.http, deps_.env,
                        with_providers ? deps_.probe : no_probe};
  inputs.with_providers = with_providers;
  inputs.variables = deps_.variables;
  // Without providers nothing runs: MCP tools count only when their servers
  // have listed them (no server is started to estimate a context).
  inputs.mcp = deps_.mcp;
  return BuildTurnPlan(inputs);
}

std::optional<events::ContextEstimate> SessionManager::EstimateFor(
    const store::SessionRecord& record, SessionRunner* runner) {
  if (runner == nullptr) {
    absl::StatusOr<SessionRunner*> loaded = Runner(record.id);
    if (!loaded.ok()) return std::nullopt;
    runner = *loaded;
  }
  absl::StatusOr<TurnPlan> plan = PlanFor(record, /*with_providers=*/false);
  if (!plan.ok()) return std::nullopt;
  absl::StatusOr<events::ContextEstimate> estimate = runner->Estimate(*plan);
  if (!estimate.ok()) return std::nullopt;
  return *estimate;
}

absl::StatusOr<std::vector<SessionInfo>> SessionManager::ListSessions(
    int page_size, const std::string& page_token, std::string* next_page_token) {
  ASSIGN_OR_RETURN(store::SessionPage page, deps_.store.ListSessions(page_size, page_token));
  auto cfg = LoadConfig();  // once per page, not per session
  std::vector<SessionInfo> out;
  for (const auto& record : page.sessions) {
    const SessionRunner* runner = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = runners_.find(record.id); it != runners_.end()) runner = it->second.get();
    }
    out.push_back(Describe(record, runner, cfg.ok() ? &*cfg : nullptr));
  }
  if (next_page_token != nullptr) *next_page_token = page.next_page_token;
  return out;
}

absl::StatusOr<std::string> SessionManager::StartTurn(const std::string& session_id,
                                                      const std::string& text,
                                                      const std::string& lease_id) {
  if (text.empty()) return absl::InvalidArgumentError("the user message is empty");
  RETURN_IF_ERROR(leases_.CheckWrite(session_id, lease_id));
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the daemon is shutting down");
  }
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  // Refused early, before the plan is built; a compaction is left to the
  // runner, which waits for one that is just ending.
  RETURN_IF_ERROR(runner->CheckWritable());
  if (runner->running() && !runner->compacting()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "session ", session_id, " already has a running turn; interrupt it or wait for it to end"));
  }
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());

  TurnPlanInputs inputs{cfg, record, text, deps_.tools, deps_.http, deps_.env, deps_.probe};
  inputs.variables = deps_.variables;
  inputs.mcp = deps_.mcp;
  inputs.defer_mcp = true;  // the reply does not wait for MCP servers to start
  ASSIGN_OR_RETURN(TurnPlan plan, BuildTurnPlan(inputs));
  std::string turn_id = plan.turn_id;
  RETURN_IF_ERROR(runner->StartTurn(std::move(plan)));
  return turn_id;
}

absl::StatusOr<bool> SessionManager::InterruptTurn(const std::string& session_id,
                                                   const std::string& lease_id) {
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  RETURN_IF_ERROR(leases_.CheckWrite(session_id, lease_id));
  return runner->Interrupt();
}

absl::Status SessionManager::RespondToApproval(
    const std::string& session_id, const std::string& request_id,
    const std::vector<events::ApprovalAnswer>& answers,
    const std::optional<events::ApprovalAnswer>& all, const std::string& lease_id) {
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  RETURN_IF_ERROR(leases_.CheckWrite(session_id, lease_id));
  return runner->RespondToApproval(request_id, answers, all);
}

absl::StatusOr<std::string> SessionManager::AcquireLease(const std::string& session_id,
                                                         const std::string& client_name,
                                                         bool take_over,
                                                         WriteLeases::LostCallback on_lost) {
  // Granted also while the session cannot be written (see the header).
  RETURN_IF_ERROR(Runner(session_id).status());
  return leases_.Acquire(session_id, client_name, take_over, std::move(on_lost));
}

void SessionManager::ReleaseLease(const std::string& session_id, const std::string& lease_id) {
  leases_.Release(session_id, lease_id);
}

absl::StatusOr<std::string> SessionManager::Compact(const std::string& session_id,
                                                    const std::string& lease_id) {
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the daemon is shutting down");
  }
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  RETURN_IF_ERROR(leases_.CheckWrite(session_id, lease_id));
  RETURN_IF_ERROR(runner->CheckWritable());
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
  ASSIGN_OR_RETURN(TurnPlan plan, PlanFor(record, /*with_providers=*/true));
  plan.turn_id = NewId("compact_");
  std::string id = plan.turn_id;
  RETURN_IF_ERROR(runner->StartCompaction(std::move(plan)));
  return id;
}

absl::StatusOr<events::ContextEstimate> SessionManager::ClearContext(
    const std::string& session_id, const std::string& lease_id) {
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  RETURN_IF_ERROR(leases_.CheckWrite(session_id, lease_id));
  RETURN_IF_ERROR(runner->CheckWritable());
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
  ASSIGN_OR_RETURN(TurnPlan plan, PlanFor(record, /*with_providers=*/false));
  plan.turn_id = NewId("clear_");
  RETURN_IF_ERROR(runner->Clear(plan).status());
  return runner->Estimate(plan);
}

absl::StatusOr<SessionInfo> SessionManager::GetStats(const std::string& session_id) {
  return GetSession(session_id);
}

absl::StatusOr<size_t> SessionManager::PurgeExpired() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  const int64_t days = cfg.sessions.expire_after_days;
  if (days <= 0) return 0;
  const int64_t cutoff = deps_.clock.NowUnixMs() - days * 24 * 60 * 60 * 1000;
  // A session idle that long has no running turn; a runner that was loaded
  // for reading stays (other threads may hold it) and fails cleanly on use,
  // since its rows are gone.
  ASSIGN_OR_RETURN(std::vector<std::string> removed, deps_.store.PurgeExpired(cutoff));
  for (const auto& id : removed) {
    RAW_LOG(Info) << "session " << id << " expired after " << days
                  << " days without conversation activity; removed";
  }
  return removed.size();
}

absl::StatusOr<std::unique_ptr<Subscription>> SessionManager::Subscribe(
    const std::string& session_id, uint64_t after_seq) {
  ASSIGN_OR_RETURN(SessionRunner * runner, Runner(session_id));
  return runner->Subscribe(after_seq);
}

absl::StatusOr<store::HistoryPage> SessionManager::GetHistory(const std::string& session_id,
                                                              const std::string& cursor, int limit,
                                                              store::HistoryDirection direction) {
  // Through the runner, so a turn left unfinished by a crash is closed first
  // (when the history reads; a page is then read as it is, and only a page
  // holding a damaged row fails, naming it).
  RETURN_IF_ERROR(Runner(session_id).status());
  return deps_.store.GetHistory(session_id, cursor, limit, direction);
}

ConfigCheck SessionManager::CheckConfig(const std::string& path) {
  ConfigCheck check;
  check.path = path.empty() ? deps_.config_path : path;
  struct stat st;
  check.exists = stat(check.path.c_str(), &st) == 0;
  std::vector<config::ConfigProblem> problems;
  auto cfg = config::LoadConfigFile(check.path, &problems);
  if (!cfg.ok()) {
    if (problems.empty()) {
      check.errors.push_back(std::string(cfg.status().message()));
    } else {
      for (const auto& p : problems) check.errors.push_back(p.ToString());
    }
    return check;
  }
  // Tool selections are checked against the registry as well.
  for (const auto& [name, agent] : cfg->agents) {
    // mcp/ entries are checked by the loader against mcp_servers.
    auto selected = deps_.tools.Select(NonMcpPatterns(agent.tools_use));
    if (!selected.ok()) {
      check.errors.push_back(absl::StrCat("agents.", name, ".", selected.status().message()));
    }
  }
  return check;
}

void SessionManager::Shutdown() {
  std::vector<SessionRunner*> runners;
  {
    absl::MutexLock lock(&mu_);
    shutting_down_ = true;
    for (auto& [id, r] : runners_) runners.push_back(r.get());
  }
  for (SessionRunner* r : runners) r->Shutdown();
}

}  // namespace raw::loop
