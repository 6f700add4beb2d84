#include "daemon/loop/session_manager.h"

#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/ids.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "daemon/config/approval_mode_names.h"
#include "daemon/config/builtin_defaults.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/withheld_env.h"
#include "daemon/loop/session_runner.h"
#include "daemon/loop/stored_raven_settings.h"
#include "daemon/loop/turn_planner.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/providers/provider_factory.h"

namespace raw::loop {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A model name a client chose for a session: "" or a defined entry.
absl::Status CheckModelChoice(const config::Config& cfg, const std::string& model) {
  if (model.empty() || cfg.models.contains(model)) return absl::OkStatus();
  std::vector<std::string> names;
  for (const auto& [name, entry] : cfg.models) names.push_back(name);
  return absl::InvalidArgumentError(absl::StrCat(
      "model \"", model, "\" is not a defined model (defined: ",
      names.empty() ? "none" : absl::StrJoin(names, ", "), "); see ListModels"));
}

}  // namespace

SessionManager::SessionManager(SessionManagerDeps deps) : deps_(std::move(deps)) {
  if (auto cfg = LoadConfig(); cfg.ok()) max_live_bytes_ = cfg->sessions.max_live_bytes;
  {
    absl::MutexLock lock(&mu_);
    grace_end_ = absl::Now() + deps_.restart_grace;
  }
  leases_.SetRestartGrace(deps_.clock.NowUnixMs() + absl::ToInt64Milliseconds(deps_.restart_grace));
  sweeper_ = std::thread(&SessionManager::SweepLoop, this);
}

SessionManager::~SessionManager() { Shutdown(); }

absl::StatusOr<config::Config> SessionManager::LoadConfig() {
  absl::StatusOr<config::Config> cfg = config_cache_.Load(deps_.config_path);
  // Every config the daemon acts on passes here, so command variables read
  // under it never see what it withholds.
  if (cfg.ok() && deps_.variables != nullptr) {
    deps_.variables->SetWithheldEnv(config::WithheldEnvNames(*cfg));
  }
  return cfg;
}

SessionInfo SessionManager::Describe(const store::SessionRecord& record,
                                     const SessionRunner* runner, const config::Config* cfg,
                                     ShownModels* shown) {
  SessionInfo info;
  info.record = record;
  info.running = runner != nullptr && runner->running();
  info.compacting = runner != nullptr && runner->compacting();
  info.writer = leases_.Holder(record.id);
  if (cfg == nullptr) {
    // The file does not load now (an edit in progress): the last valid
    // setting, which applies again once it loads, rather than "never".
    if (auto last = config_cache_.LastLoaded(deps_.config_path)) {
      info.expires_at_unix_ms = store::ExpiresAt(record, last->sessions.expire_after_days);
    }
    return info;
  }
  info.expires_at_unix_ms = store::ExpiresAt(record, cfg->sessions.expire_after_days);
  const std::pair<std::string, std::string> key{record.agent, record.model};
  ShownModels own;
  if (shown == nullptr) shown = &own;
  auto it = shown->find(key);
  if (it == shown->end()) {
    // Describing never probes the network (an agent that would need the
    // local-server probe to resolve shows no model until a turn resolves
    // it) and never re-hashes a package: a turn does that, on the worker
    // pool, before it runs anything.
    auto packaged =
        packages::ResolvePackages(*cfg, record.agent, deps_.env, packages::EntryCheck::kTrust);
    auto resolved = !packaged.ok()
                        ? absl::StatusOr<config::ResolvedAgent>(packaged.status())
                        : config::ResolveAgent(packaged->config, record.agent, deps_.env,
                                               [](const std::string&) { return false; },
                                               record.model);
    ShownModel model;
    if (resolved.ok()) model = {resolved->model.name, resolved->model.model_id};
    it = shown->emplace(key, std::move(model)).first;
  }
  if (!it->second.first.empty()) {
    info.model = it->second.first;
    info.model_id = it->second.second;
  } else {
    // A chosen model that is no longer defined still shows which it is;
    // the next turn says what is wrong.
    info.model = record.model;
  }
  return info;
}

void SessionManager::PrepareHttp() {
  if (http_prepared_.exchange(true)) return;
  pool_.Schedule([this] { deps_.http.Prepare(); });
}

void SessionManager::CreateSession(std::string agent, std::string cwd, std::string model,
                                   std::vector<config::SessionMcpServerSpec> mcp_servers,
                                   Reply<SessionInfo> reply) {
  PrepareHttp();
  bool scheduled =
      pool_.Schedule([this, agent = std::move(agent), cwd = std::move(cwd),
                      model = std::move(model), mcp_servers = std::move(mcp_servers), reply] {
        reply(CreateSessionNow(agent, cwd, model, mcp_servers));
      });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

absl::StatusOr<SessionInfo> SessionManager::CreateSessionNow(
    const std::string& agent, const std::string& cwd, const std::string& model,
    const std::vector<config::SessionMcpServerSpec>& mcp_servers) {
  if (cwd.empty() || cwd[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("cwd must be an absolute directory path, got \"", cwd, "\""));
  }
  if (!IsDirectory(cwd)) {
    return absl::InvalidArgumentError(absl::StrCat("cwd ", cwd, " is not an existing directory"));
  }
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  // The agent's package exports must resolve for a session of it to start.
  ASSIGN_OR_RETURN(packages::PackagedConfig packaged,
                   packages::ResolvePackages(cfg, agent, deps_.env));
  RETURN_IF_ERROR(CheckModelChoice(packaged.config, model));
  ASSIGN_OR_RETURN(config::ResolvedAgent resolved,
                   config::ResolveAgent(packaged.config, agent, deps_.env, deps_.probe, model));
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the daemon is shutting down");
  }
  store::SessionRecord record;
  record.id = NewId();
  ASSIGN_OR_RETURN(McpServerMap servers,
                   config::CheckSessionMcpServers(mcp_servers, cfg, "mcp_servers", record.id));
  record.agent = resolved.agent.name;
  record.model = model;
  record.cwd = cwd;
  record.created_at_unix_ms = deps_.clock.NowUnixMs();
  record.last_activity_unix_ms = record.created_at_unix_ms;
  RETURN_IF_ERROR(deps_.store.CreateSession(record));
  RAW_LOG(Info) << "session " << record.id << " created (agent " << record.agent << ", cwd "
                << cwd << ")";
  if (!servers.empty()) {
    // Nobody else knows the session yet: its servers are in place before
    // the reply, so the first turn has them.
    ASSIGN_OR_RETURN(std::shared_ptr<SessionRunner> runner, Runner(record.id));
    runner->InitMcpServers(std::move(servers));
  }
  SessionInfo info;
  info.record = record;
  info.model = resolved.model.name;
  info.model_id = resolved.model.model_id;
  return info;
}

std::shared_ptr<SessionRunner> SessionManager::LoadedRunner(const std::string& session_id) {
  absl::MutexLock lock(&mu_);
  auto it = runners_.find(session_id);
  if (it == runners_.end()) return nullptr;
  it->second.last_used_unix_ms = deps_.clock.NowUnixMs();
  return it->second.runner;
}

absl::StatusOr<std::shared_ptr<SessionRunner>> SessionManager::Runner(
    const std::string& session_id) {
  std::shared_ptr<SessionRunner> runner = LoadedRunner(session_id);
  while (runner == nullptr) {
    uint64_t removals_seen = 0;
    {
      absl::MutexLock lock(&mu_);
      removals_seen = removals_;
    }
    ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
    absl::MutexLock lock(&mu_);
    if (shutting_down_) return absl::UnavailableError("the daemon is shutting down");
    auto it = runners_.find(session_id);
    // A removal since the read may have removed this session, before its
    // runner was here to be told (ForgetRemovedSession): read it again.
    if (it == runners_.end() && removals_ != removals_seen) continue;
    if (it == runners_.end()) {
      SessionRunnerDeps runner_deps{deps_.store, deps_.clock, pool_, leases_,
                                    [this, session_id](PlanPurpose purpose,
                                                       const std::string& text)
                                        -> absl::StatusOr<TurnPlan> {
                                      // The record as it is now (its agent, its cwd).
                                      ASSIGN_OR_RETURN(store::SessionRecord now,
                                                       deps_.store.GetSession(session_id));
                                      std::shared_ptr<SessionRunner> self =
                                          LoadedRunner(session_id);
                                      return PlanFor(now,
                                                     self ? self->mcp_servers() : McpServerMap(),
                                                     purpose, text);
                                    },
                                    nullptr};
      runner_deps.max_live_bytes = max_live_bytes_.load();
      if (deps_.variables != nullptr) {
        runner_deps.secrets = [variables = deps_.variables] {
          return variables->SecretValues();
        };
      }
      it = runners_.emplace(session_id, Loaded{SessionRunner::Create(record, runner_deps), 0})
               .first;
    }
    it->second.last_used_unix_ms = deps_.clock.NowUnixMs();
    runner = it->second.runner;
  }
  // Every caller comes through here, and the runner serializes the attempts:
  // no one reads or writes before a turn left unfinished by a crash is
  // closed, whenever that succeeds. Until it does, reads go on (each call
  // retries, cheaply: one page of the newest history) and writes are
  // refused by the runner (CheckWritable).
  runner->RecoverUnfinishedTurn().IgnoreError();
  return runner;
}

absl::StatusOr<SessionInfo> SessionManager::GetSession(const std::string& id, bool with_context) {
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(id));
  std::shared_ptr<SessionRunner> runner = LoadedRunner(id);
  auto cfg = LoadConfig();
  SessionInfo info = Describe(record, runner.get(), cfg.ok() ? &*cfg : nullptr);
  if (with_context || (runner != nullptr && runner->context_loaded())) {
    info.context = EstimateFor(record);
  }
  return info;
}

void SessionManager::GetSession(std::string id, bool with_context, Reply<SessionInfo> reply) {
  PrepareHttp();
  // Always on the pool, even for a session whose context is in memory: its
  // estimate takes the runner's lock, which a commit of the turn's end holds
  // while it waits for the store's writer (shared by every session), and
  // its plan reads the config, packages and skill folders.
  bool scheduled = pool_.Schedule(
      [this, id = std::move(id), with_context, reply] { reply(GetSession(id, with_context)); });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

absl::StatusOr<AgentCatalog> SessionManager::ListAgents() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  AgentCatalog catalog;
  for (const auto& [name, agent] : cfg.agents) catalog.agents.push_back(agent);
  catalog.default_agent = cfg.default_agent.empty() ? config::kDefaultAgentName : cfg.default_agent;
  return catalog;
}

void SessionManager::ListMcpServers(Reply<std::vector<mcp::McpServerStatus>> reply) {
  bool scheduled = pool_.Schedule([this, reply] { reply(ListMcpServersNow()); });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

absl::StatusOr<std::vector<mcp::McpServerStatus>> SessionManager::ListMcpServersNow() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  // A server defined with "from" as its package defines it: what it runs,
  // and the definition a running instance is found by.
  packages::ResolvedMcpServers resolved =
      packages::ResolveMcpServers(cfg, deps_.env, packages::EntryCheck::kTrust);
  std::vector<mcp::McpServerStatus> statuses;
  if (deps_.mcp == nullptr) {
    for (const auto& [name, server] : resolved.servers) {
      config::McpServerConfig named = server;
      named.name = name;
      statuses.push_back(mcp::StoppedStatus(named));
    }
  } else {
    statuses = deps_.mcp->StatusOf(resolved.servers);
  }
  // One whose package does not resolve cannot start: say why.
  for (mcp::McpServerStatus& status : statuses) {
    auto error = resolved.errors.find(status.name);
    if (error != resolved.errors.end() && status.last_error.empty()) {
      status.last_error = error->second;
    }
  }
  // Then those agents take from a package directly, found by the same
  // definition their sessions start them from.
  for (const packages::AgentMcpServer& taken : resolved.agent_servers) {
    std::vector<mcp::McpServerStatus> of =
        deps_.mcp == nullptr ? std::vector<mcp::McpServerStatus>{mcp::StoppedStatus(taken.server)}
                             : deps_.mcp->StatusOf({{taken.server.name, taken.server}});
    for (mcp::McpServerStatus& status : of) {
      if (status.last_error.empty()) status.last_error = taken.error;
      statuses.push_back(std::move(status));
    }
  }
  if (deps_.mcp == nullptr) return statuses;
  std::vector<std::shared_ptr<SessionRunner>> runners;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, loaded] : runners_) runners.push_back(loaded.runner);
  }
  for (const auto& runner : runners) {
    for (mcp::McpServerStatus& status : deps_.mcp->StatusOf(runner->mcp_servers())) {
      statuses.push_back(std::move(status));
    }
  }
  return statuses;
}

void SessionManager::ListPackages(Reply<PackageListing> reply) {
  bool scheduled = pool_.Schedule([this, reply] {
    reply([this]() -> absl::StatusOr<PackageListing> {
      ASSIGN_OR_RETURN(packages::PackageStore store, packages::PackageStore::ForUser(deps_.env));
      PackageListing listing;
      listing.index_path = packages::PackageIndex::PathForConfig(deps_.config_path);
      ASSIGN_OR_RETURN(listing.packages,
                       packages::List(packages::PackageContext{store, deps_.config_path, nullptr}));
      return listing;
    }());
  });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

absl::StatusOr<std::vector<config::ModelConfig>> SessionManager::ListModels() {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  std::vector<config::ModelConfig> models;
  for (const auto& [name, model] : cfg.models) {
    models.push_back(model);
    models.back().name = name;
  }
  return models;
}

absl::StatusOr<TurnPlan> SessionManager::PlanFor(const store::SessionRecord& record,
                                                 const McpServerMap& session_servers,
                                                 PlanPurpose purpose, const std::string& user_text,
                                                 packages::EntryCheck package_check) {
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  const bool with_providers =
      purpose != PlanPurpose::kContextOnly && purpose != PlanPurpose::kWarmup;
  // Without providers nothing is sent, so nothing may probe the network.
  const config::ServerProbe no_probe = [](const std::string&) { return false; };
  TurnPlanInputs inputs{cfg,       record,      user_text, deps_.tools, deps_.http, deps_.env,
                        with_providers ? deps_.probe : no_probe};
  inputs.with_providers = with_providers;
  inputs.package_check = package_check;
  inputs.variables = deps_.variables;
  // Without providers nothing runs: MCP tools count only when their servers
  // have listed them (no server is started to estimate a context).
  inputs.mcp = deps_.mcp;
  inputs.session_mcp_servers = session_servers;
  // A turn does not wait for MCP servers to start before it records its
  // start; it attaches their tools on its own thread.
  inputs.defer_mcp = purpose == PlanPurpose::kTurn;
  // A compaction's plan waits for them itself: the daemon's stop ends that
  // wait (and Shutdown then waits for no plan).
  inputs.cancel = shutdown_.get();
  // The dashboard card's overrides, read at each use (stored_raven_settings.h).
  inputs.raven_settings = std::make_shared<StoredRavenSettings>(cfg, deps_.store);
  ASSIGN_OR_RETURN(TurnPlan plan, BuildTurnPlan(inputs));
  if (purpose == PlanPurpose::kWarmup) {
    // Only to serialize the history: nothing secret is resolved for it.
    ASSIGN_OR_RETURN(plan.provider,
                     providers::MakeSerializingProvider(plan.agent.model, deps_.http));
  }
  return plan;
}

std::optional<events::ContextEstimate> SessionManager::EstimateFor(
    const store::SessionRecord& record) {
  absl::StatusOr<std::shared_ptr<SessionRunner>> runner = Runner(record.id);
  if (!runner.ok()) return std::nullopt;
  // An estimate runs nothing and stores nothing, and GetSession and GetStats
  // may ask for one on an API thread: the packages are not re-hashed.
  absl::StatusOr<TurnPlan> plan =
      PlanFor(record, (*runner)->mcp_servers(), PlanPurpose::kContextOnly, "",
              packages::EntryCheck::kTrust);
  if (!plan.ok()) return std::nullopt;
  absl::StatusOr<events::ContextEstimate> estimate = (*runner)->Estimate(*plan);
  if (!estimate.ok()) return std::nullopt;
  return *estimate;
}

absl::StatusOr<std::vector<SessionInfo>> SessionManager::ListSessions(
    int page_size, const std::string& page_token, std::string* next_page_token,
    const std::string& query) {
  ASSIGN_OR_RETURN(store::SessionPage page,
                   deps_.store.ListSessions(page_size, page_token, query));
  auto cfg = LoadConfig();  // once per page, not per session
  ShownModels shown;        // and each agent's model once per page
  std::vector<SessionInfo> out;
  for (const auto& record : page.sessions) {
    std::shared_ptr<SessionRunner> runner;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = runners_.find(record.id); it != runners_.end()) runner = it->second.runner;
    }
    out.push_back(Describe(record, runner.get(), cfg.ok() ? &*cfg : nullptr, &shown));
  }
  if (next_page_token != nullptr) *next_page_token = page.next_page_token;
  return out;
}

std::shared_ptr<SessionRunner> SessionManager::ReadyRunner(const std::string& session_id) {
  std::shared_ptr<SessionRunner> runner = LoadedRunner(session_id);
  if (runner == nullptr || !runner->recovered_now()) return nullptr;
  return runner;
}

template <typename R>
void SessionManager::WithRunner(const std::string& session_id, const R& reply,
                                std::function<void(SessionRunner&)> fn) {
  if (std::shared_ptr<SessionRunner> runner = ReadyRunner(session_id)) {
    fn(*runner);
    return;
  }
  bool scheduled = pool_.Schedule([this, session_id, reply, fn = std::move(fn)] {
    absl::StatusOr<std::shared_ptr<SessionRunner>> runner = Runner(session_id);
    if (!runner.ok()) {
      reply(runner.status());
      return;
    }
    fn(**runner);
  });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

void SessionManager::StartTurn(const std::string& session_id, std::string text,
                               std::string lease_id, Reply<std::string> reply,
                               std::vector<events::ImageUpload> images, std::string turn_id) {
  if (text.empty() && images.empty()) {
    return reply(absl::InvalidArgumentError("the user message is empty"));
  }
  PrepareHttp();
  WithRunner(session_id, reply,
             [text = std::move(text), lease_id = std::move(lease_id), reply,
              images = std::move(images), turn_id = std::move(turn_id)](SessionRunner& r) mutable {
               r.StartTurn(std::move(text), std::move(lease_id), reply, std::move(images),
                           std::move(turn_id));
             });
}

void SessionManager::InterruptTurn(const std::string& session_id, std::string lease_id,
                                   Reply<bool> reply, std::string operation_id) {
  WithRunner(session_id, reply,
             [lease_id = std::move(lease_id), reply,
              operation_id = std::move(operation_id)](SessionRunner& r) mutable {
               r.Interrupt(std::move(lease_id), reply, std::move(operation_id));
             });
}

void SessionManager::InterruptOwnOperation(const std::string& session_id, std::string lease_id,
                                           Reply<bool> reply) {
  WithRunner(session_id, reply, [lease_id = std::move(lease_id), reply](SessionRunner& r) mutable {
    r.Interrupt(std::move(lease_id), reply, "", /*only_own=*/true);
  });
}

void SessionManager::RespondToApproval(const std::string& session_id, std::string request_id,
                                       std::vector<events::ApprovalAnswer> answers,
                                       std::optional<events::ApprovalAnswer> all,
                                       std::string lease_id, StatusReply reply) {
  WithRunner(session_id, reply,
             [lease_id = std::move(lease_id), request_id = std::move(request_id),
              answers = std::move(answers), all = std::move(all), reply](SessionRunner& r) mutable {
               r.RespondToApproval(std::move(lease_id), std::move(request_id), std::move(answers),
                                   std::move(all), reply);
             });
}

void SessionManager::Compact(const std::string& session_id, std::string lease_id,
                             Reply<std::string> reply, std::string operation_id) {
  WithRunner(session_id, reply,
             [lease_id = std::move(lease_id), reply,
              operation_id = std::move(operation_id)](SessionRunner& r) mutable {
               r.StartCompaction(std::move(lease_id), reply, std::move(operation_id));
             });
}

void SessionManager::ClearContext(const std::string& session_id, std::string lease_id,
                                  Reply<events::ContextEstimate> reply) {
  WithRunner(session_id, reply, [lease_id = std::move(lease_id), reply](SessionRunner& r) mutable {
    r.Clear(std::move(lease_id), reply);
  });
}

void SessionManager::SetSessionMcpServers(const std::string& session_id, std::string lease_id,
                                          std::vector<config::SessionMcpServerSpec> servers,
                                          StatusReply reply) {
  absl::StatusOr<config::Config> cfg = LoadConfig();
  if (!cfg.ok()) return reply(cfg.status());
  absl::StatusOr<McpServerMap> checked =
      config::CheckSessionMcpServers(servers, *cfg, "servers", session_id);
  if (!checked.ok()) return reply(checked.status());
  WithRunner(session_id, reply,
             [this, session_id, lease_id = std::move(lease_id), checked = *std::move(checked),
              reply](SessionRunner& r) mutable {
               r.SetMcpServers(std::move(lease_id), checked,
                               [this, session_id, kept = checked, reply](absl::Status s) {
                                 // On the session's queue, in order: what the last
                                 // call set is what keeps running.
                                 if (s.ok() && deps_.mcp != nullptr) {
                                   deps_.mcp->DropSessionServers(session_id, kept);
                                 }
                                 reply(s);
                               });
             });
}

void SessionManager::ConfigureSession(const std::string& session_id, std::string lease_id,
                                      std::optional<std::string> agent,
                                      std::optional<std::string> model,
                                      std::optional<std::string> approval_mode,
                                      Reply<ConfiguredSession> reply) {
  // An approval mode alone does not wait for the session to be idle; any
  // other request (an empty one too) is a write checked while idle, as before.
  if (!agent.has_value() && !model.has_value() && approval_mode.has_value()) {
    return ChooseApprovalMode(session_id, std::move(lease_id), std::move(approval_mode), reply);
  }
  // The agent, the model and the mode change in one command, under one
  // check of the lease: all of them, or (on any error) none.
  WithRunner(
      session_id, reply,
      [this, session_id, lease_id = std::move(lease_id), agent, model, approval_mode,
       reply](SessionRunner& r) {
        auto runner = r.shared_from_this();
        // The configured mode of the agent the session runs after the change.
        auto configured = std::make_shared<config::ApprovalMode>();
        r.ChangeWhileIdle(
            lease_id,
            [this, session_id, lease_id, agent, model, approval_mode, runner,
             configured]() -> absl::Status {
              std::optional<config::ApprovalMode> chosen;
              auto check = [&](config::ApprovalMode agent_mode) -> absl::Status {
                *configured = agent_mode;
                if (!approval_mode.has_value()) return absl::OkStatus();
                ASSIGN_OR_RETURN(chosen, CheckModeChoice(session_id, agent_mode, *approval_mode));
                return absl::OkStatus();
              };
              RETURN_IF_ERROR(ApplyConfiguration(session_id, agent, model, check));
              if (approval_mode.has_value()) runner->SetApprovalModeNow(lease_id, chosen);
              return absl::OkStatus();
            },
            [this, session_id, lease_id, runner, configured, reply](absl::Status s) {
              if (!s.ok()) return reply(s);
              absl::StatusOr<SessionInfo> info = GetSession(session_id);
              if (!info.ok()) return reply(info.status());
              reply(ConfiguredSession{*std::move(info),
                                      std::string(config::ApprovalModeName(
                                          runner->EffectiveApprovalMode(*configured, lease_id)))});
            });
      });
}

absl::StatusOr<std::optional<config::ApprovalMode>> SessionManager::CheckModeChoice(
    const std::string& session_id, config::ApprovalMode agent_mode, const std::string& name) {
  if (name.empty()) return std::optional<config::ApprovalMode>();
  std::optional<config::ApprovalMode> chosen = config::ApprovalModeNamed(name);
  if (!chosen) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown approval mode \"", name,
                     "\" (modes: ", absl::StrJoin(config::kApprovalModes, ", "), ")"));
  }
  // deny_all is for unattended agents: no client may loosen it.
  if (agent_mode == config::ApprovalMode::kDenyAll && *chosen != agent_mode) {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id,
                     "'s agent is configured with approval_mode deny_all, which a session "
                     "cannot leave"));
  }
  return chosen;
}

absl::StatusOr<config::ApprovalMode> SessionManager::AgentApprovalMode(
    const std::string& session_id) {
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  auto it = cfg.agents.find(record.agent);
  if (it == cfg.agents.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the agent of session ", session_id, " (\"", record.agent, "\") is no longer defined"));
  }
  return it->second.approval_mode;
}

void SessionManager::ChooseApprovalMode(const std::string& session_id, std::string lease_id,
                                        std::optional<std::string> approval_mode,
                                        Reply<ConfiguredSession> reply) {
  absl::StatusOr<config::ApprovalMode> agent_mode = AgentApprovalMode(session_id);
  if (!agent_mode.ok()) return reply(agent_mode.status());
  std::optional<config::ApprovalMode> chosen;
  const bool change = approval_mode.has_value();
  if (change) {
    absl::StatusOr<std::optional<config::ApprovalMode>> checked =
        CheckModeChoice(session_id, *agent_mode, *approval_mode);
    if (!checked.ok()) return reply(checked.status());
    chosen = *checked;
  }
  const config::ApprovalMode configured = *agent_mode;
  WithRunner(session_id, reply,
             [this, session_id, lease_id = std::move(lease_id), configured, change, chosen,
              reply](SessionRunner& r) {
               auto runner = r.shared_from_this();
               auto answer = [this, session_id, lease_id, configured, runner,
                              reply](absl::Status s) {
                 if (!s.ok()) return reply(s);
                 absl::StatusOr<SessionInfo> info = GetSession(session_id);
                 if (!info.ok()) return reply(info.status());
                 reply(ConfiguredSession{
                     *std::move(info), std::string(config::ApprovalModeName(
                                           runner->EffectiveApprovalMode(configured, lease_id)))});
               };
               if (!change) return answer(absl::OkStatus());
               r.ChooseApprovalMode(lease_id, chosen, answer);
             });
}

absl::Status SessionManager::ApplyConfiguration(
    const std::string& session_id, const std::optional<std::string>& agent,
    const std::optional<std::string>& model,
    const std::function<absl::Status(config::ApprovalMode)>& check_mode) {
  ASSIGN_OR_RETURN(store::SessionRecord record, deps_.store.GetSession(session_id));
  ASSIGN_OR_RETURN(config::Config cfg, LoadConfig());
  std::string new_agent = record.agent;
  if (agent.has_value()) {
    new_agent = agent->empty() ? cfg.default_agent : *agent;
    if (new_agent.empty()) new_agent = config::kDefaultAgentName;
    if (!cfg.agents.contains(new_agent)) {
      std::vector<std::string> names;
      for (const auto& [name, entry] : cfg.agents) names.push_back(name);
      return absl::NotFoundError(absl::StrCat("unknown agent \"", new_agent, "\" (defined: ",
                                              absl::StrJoin(names, ", "), ")"));
    }
    if (new_agent != record.agent && record.last_seq > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "session ", session_id, " already has a conversation, so its agent (\"", record.agent,
          "\") can no longer change; start a new session with agent \"", new_agent, "\""));
    }
  }
  const std::string new_model = model.value_or(record.model);
  RETURN_IF_ERROR(CheckModelChoice(cfg, new_model));
  auto new_entry = cfg.agents.find(new_agent);
  if (new_entry == cfg.agents.end()) {
    return absl::FailedPreconditionError(absl::StrCat("the agent of session ", session_id, " (\"",
                                                      new_agent, "\") is no longer defined"));
  }
  RETURN_IF_ERROR(check_mode(new_entry->second.approval_mode));
  if (new_agent == record.agent && new_model == record.model) return absl::OkStatus();
  RETURN_IF_ERROR(deps_.store.SetAgentAndModel(session_id, new_agent, new_model));
  RAW_LOG(Info) << "session " << session_id << " configured: agent " << new_agent << ", model "
                << (new_model.empty() ? "(the agent's)" : new_model);
  return absl::OkStatus();
}

void SessionManager::AcquireLease(const std::string& session_id, LeaseClient client,
                                  WhenHeld when_held, LeaseCallbacks callbacks,
                                  SessionRunner::LeaseReply reply) {
  // Granted also while the session cannot be written (see the header).
  WithRunner(session_id, reply,
             [client = std::move(client), when_held, callbacks = std::move(callbacks),
              reply](SessionRunner& r) mutable {
               r.AcquireLease(std::move(client), when_held, std::move(callbacks), reply);
             });
}

void SessionManager::EndRestartGrace() {
  leases_.SetRestartGrace(0);
  for (const std::string& session_id : leases_.ReservedSessions()) {
    // A session with a lease entry is never unloaded, so this finds its
    // runner; the change runs on its queue, as every lease change does.
    WithRunner(
        session_id, [](const absl::Status&) {}, [](SessionRunner& r) { r.EndLeaseReservation(); });
  }
}

void SessionManager::ReleaseLease(const std::string& session_id, std::string lease_id) {
  // A session with a lease is never unloaded, so this finds its runner;
  // a lookup error means there is nothing to release.
  WithRunner(
      session_id, [](const absl::Status&) {},
      [lease_id = std::move(lease_id)](SessionRunner& r) mutable {
        r.ReleaseLease(std::move(lease_id));
      });
}

void SessionManager::CancelLeaseWait(const std::string& session_id, std::string wait_id) {
  WithRunner(
      session_id, [](const absl::Status&) {},
      [wait_id = std::move(wait_id)](SessionRunner& r) mutable {
        r.CancelLeaseWait(std::move(wait_id));
      });
}

void SessionManager::DeclineHandover(const std::string& session_id, std::string lease_id,
                                     Reply<int> reply) {
  WithRunner(session_id, reply, [lease_id = std::move(lease_id), reply](SessionRunner& r) mutable {
    r.DeclineHandover(std::move(lease_id), reply);
  });
}

absl::StatusOr<SessionInfo> SessionManager::GetStats(const std::string& session_id) {
  ASSIGN_OR_RETURN(SessionInfo info, GetSession(session_id));
  if (std::shared_ptr<SessionRunner> runner = LoadedRunner(session_id)) {
    info.overhead = runner->session_state().overhead();
  }
  return info;
}

void SessionManager::GetStats(std::string session_id, Reply<SessionInfo> reply) {
  // On the pool, as GetSession above.
  bool scheduled = pool_.Schedule(
      [this, session_id = std::move(session_id), reply] { reply(GetStats(session_id)); });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

void SessionManager::DeleteSession(const std::string& session_id, std::string lease_id,
                                   StatusReply reply) {
  auto hidden = std::make_shared<bool>(false);
  WithRunner(
      session_id, reply,
      [this, session_id, lease_id = std::move(lease_id), hidden, reply](SessionRunner& r) mutable {
        r.ChangeWhileIdle(
            std::move(lease_id),
            // On the session's queue while idle: no turn can start meanwhile.
            [this, session_id, hidden] {
              return deps_.store.DeleteSession(session_id, hidden.get());
            },
            [this, session_id, hidden, reply](absl::Status s) {
              // Once hidden the session is gone for every reader, also when a
              // later batch failed (the rows left go at the next purge).
              if (*hidden) {
                // On the session's queue, like every lease change: the holder's
                // stream and every client waiting for a handover end now,
                // rather than when each gives up.
                ForgetRemovedSession(
                    session_id,
                    absl::StrCat("session ", session_id, " was deleted; its write lease ended"),
                    /*on_queue=*/true);
                RAW_LOG(Info) << "session " << session_id << " removed on request";
              }
              reply(s);
            },
            /*needs_history=*/false);
      });
}

absl::StatusOr<std::unique_ptr<Subscription>> SessionManager::Subscribe(
    const std::string& session_id, uint64_t after_seq) {
  ASSIGN_OR_RETURN(std::shared_ptr<SessionRunner> runner, Runner(session_id));
  return runner->SubscribeWithinBound(after_seq);
}

void SessionManager::Subscribe(std::string session_id, uint64_t after_seq,
                               Reply<std::unique_ptr<Subscription>> reply) {
  if (std::shared_ptr<SessionRunner> runner = ReadyRunner(session_id)) {
    reply(runner->SubscribeWithinBound(after_seq));
    return;
  }
  bool scheduled = pool_.Schedule([this, session_id = std::move(session_id), after_seq, reply] {
    reply(Subscribe(session_id, after_seq));
  });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
}

void SessionManager::GetHistory(std::string session_id, std::string cursor, int limit,
                                store::HistoryDirection direction,
                                Reply<store::HistoryPage> reply) {
  // A page is one read of the store, as the API's other reads are; only the
  // first use of the session (its load and recovery) goes to the pool.
  if (ReadyRunner(session_id) != nullptr) {
    reply(deps_.store.GetHistory(session_id, cursor, limit, direction));
    return;
  }
  bool scheduled = pool_.Schedule(
      [this, session_id = std::move(session_id), cursor = std::move(cursor), limit, direction,
       reply] { reply(GetHistory(session_id, cursor, limit, direction)); });
  if (!scheduled) reply(absl::UnavailableError("the daemon is shutting down"));
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

}  // namespace raw::loop
