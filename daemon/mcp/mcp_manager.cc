#include "daemon/mcp/mcp_manager.h"

#include <algorithm>
#include <limits>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "common/thread_start.h"
#include "common/utf8.h"
#include "daemon/mcp/tool_naming.h"
#include "daemon/tools/registry.h"

namespace raw::mcp {
namespace {

// The idle thread looks again at least this often (a call ending moves a
// server's idle deadline without waking it).
constexpr int64_t kMaxIdleWaitMs = 60000;

// Every field of the definition: equal keys share a connection.
std::string DefinitionKey(const config::McpServerConfig& config) {
  Json key = {{"name", config.name},
              {"command", config.command},
              {"env", config.env},
              {"cwd", config.cwd},
              {"url", config.url},
              {"headers", config.headers},
              {"startup_timeout_ms", config.startup_timeout_ms},
              {"call_timeout_ms", config.call_timeout_ms},
              {"idle_timeout_ms", config.idle_timeout_ms},
              {"roots", config.roots},
              {"session_id", config.session_id}};
  return DumpJson(key);
}

// The name a definition replaces earlier ones under: a session's own
// server only replaces that session's server of the same name.
std::string ScopedName(const config::McpServerConfig& config) {
  return config.session_id.empty() ? config.name
                                    : absl::StrCat(config.session_id, "\n", config.name);
}

// A tools.use entry whose server part is a glob (mcp/*/...): it matching no
// tool is no mistake, as sessions bring their own servers or none.
bool NamesAnyServer(const std::string& pattern) {
  absl::string_view rest = pattern;
  if (!absl::ConsumePrefix(&rest, "mcp/")) return false;
  return absl::StrContains(rest.substr(0, rest.find('/')), '*');
}

// The connection key: the definition, then the root after a newline (which
// the JSON of the definition never contains).
std::string ConnectionKey(const config::McpServerConfig& config, const std::string& root_dir) {
  return absl::StrCat(DefinitionKey(config), "\n", config.roots ? root_dir : "");
}

// Stops `servers` all at once and waits for them: each stop may wait out its
// server's grace periods (ManagedServer::Shutdown), so stopping one after
// another would take the sum of them.
void StopInParallel(const std::vector<std::shared_ptr<ManagedServer>>& servers) {
  if (servers.size() == 1) return servers.front()->Shutdown();
  std::vector<std::thread> stops;
  stops.reserve(servers.size());
  for (const auto& server : servers) {
    absl::StatusOr<std::thread> stop =
        StartThread(absl::StrCat("stopping MCP server \"", server->name(), "\""),
                    [server] { server->Shutdown(); });
    if (stop.ok()) {
      stops.push_back(*std::move(stop));
    } else {
      server->Shutdown();  // no thread to be had (a thread limit): on this one
    }
  }
  for (std::thread& stop : stops) stop.join();
}

bool AnyMatches(const std::vector<std::string>& patterns, const std::string& name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return tools::GlobMatch(p, name); });
}

}  // namespace

McpManager::McpManager(McpManagerOptions options) : options_(std::move(options)) {
  if (options_.clock == nullptr) {
    clock_ = std::make_shared<SystemClock>();
  } else {
    clock_ = std::shared_ptr<const Clock>(options_.clock, [](const Clock*) {});  // not owned
  }
  if (!options_.env) options_.env = ProcessEnv();
  if (options_.stop_idle_servers) {
    absl::StatusOr<std::thread> idle =
        StartThread("stopping idle MCP servers", [this] { IdleLoop(); });
    if (idle.ok()) {
      idle_thread_ = *std::move(idle);
    } else {
      RAW_LOG(Warning) << idle.status().message()
                       << "; idle MCP servers run until they are dropped";
    }
  }
}

McpManager::~McpManager() { Shutdown(); }

std::shared_ptr<ManagedServer> McpManager::GetOrCreate(const config::McpServerConfig& config,
                                                       const std::string& root_dir) {
  std::string key = ConnectionKey(config, root_dir);
  absl::MutexLock lock(&mu_);
  if (shut_down_) return nullptr;
  current_[ScopedName(config)] = key;
  auto it = servers_.find(key);
  if (it != servers_.end()) return it->second;
  ManagedServerOptions server_options;
  server_options.http = options_.http;
  server_options.clock = clock_;
  server_options.env = options_.env;
  server_options.initial_backoff_ms = options_.initial_backoff_ms;
  server_options.max_backoff_ms = options_.max_backoff_ms;
  server_options.stdin_close_grace_ms = options_.stdin_close_grace_ms;
  server_options.term_grace_ms = options_.term_grace_ms;
  server_options.on_change = [this] { OnServerChanged(); };
  server_options.redact = options_.redact;
  server_options.hang_ping_timeout_ms = options_.hang_ping_timeout_ms;
  if (config.roots) server_options.root_dir = root_dir;
  auto server = std::make_shared<ManagedServer>(config, std::move(server_options));
  servers_.emplace(std::move(key), server);
  return server;
}

McpSelection McpManager::Select(const std::vector<std::string>& tools_use,
                                const std::map<std::string, config::McpServerConfig>& servers,
                                const ExpandFn& expand, const std::string& root_dir,
                                bool start, const CancelToken* cancel) {
  McpSelection selection;
  std::vector<std::shared_ptr<ManagedServer>> needed;
  for (const auto& [name, config] : servers) {
    const std::string prefix = QualifiedToolName(name, "");
    bool covered = std::any_of(tools_use.begin(), tools_use.end(), [&](const std::string& p) {
      return PatternMayMatchPrefix(p, prefix);
    });
    if (!covered) continue;
    config::McpServerConfig named = config;
    named.name = name;
    if (!start) {
      // Only what is already known: no connection is made, no notice taken.
      absl::MutexLock lock(&mu_);
      auto it = servers_.find(ConnectionKey(named, root_dir));
      if (it != servers_.end() && it->second->has_listed()) {
        needed.push_back(it->second);
      } else {
        selection.unknown_tools = true;
      }
      continue;
    }
    std::shared_ptr<ManagedServer> server = GetOrCreate(named, root_dir);
    if (server == nullptr) return selection;  // shutting down
    needed.push_back(std::move(server));
  }

  // Resolve settings here (expand runs on this thread only), then start the
  // servers never listed, in parallel. The starters share their results
  // with this wait, which a cancellation may leave early: they run on
  // detached and hold what they use.
  struct Starts {
    absl::Mutex mu;
    std::vector<absl::Status> results ABSL_GUARDED_BY(mu);
    size_t pending ABSL_GUARDED_BY(mu) = 0;
    bool cancelled ABSL_GUARDED_BY(mu) = false;
  };
  auto starts = std::make_shared<Starts>();
  std::vector<absl::Status> results(needed.size());
  {
    absl::MutexLock lock(&starts->mu);
    starts->results.resize(needed.size());
  }
  for (size_t i = 0; start && i < needed.size(); ++i) {
    // A session's own server is given literal values by its client.
    results[i] = needed[i]->Prepare(needed[i]->config().session_id.empty() ? expand : ExpandFn());
    if (!results[i].ok() || needed[i]->has_listed()) continue;
    {
      absl::MutexLock lock(&starts->mu);
      ++starts->pending;
    }
    {
      absl::MutexLock lock(&running_starts_->mu);
      ++running_starts_->count;
    }
    auto start_server = [starts, running = running_starts_, server = needed[i], i] {
      absl::Status ready = server->EnsureReady();
      {
        absl::MutexLock lock(&starts->mu);
        starts->results[i] = std::move(ready);
        --starts->pending;
      }
      absl::MutexLock lock(&running->mu);
      --running->count;
    };
    absl::Status started = StartDetachedThread(
        absl::StrCat("starting MCP server \"", needed[i]->name(), "\""), start_server);
    if (!started.ok()) {
      // No thread to be had: this server is unavailable for this call (a
      // later call tries again), and no start runs to uncount itself.
      results[i] = std::move(started);
      {
        absl::MutexLock lock(&starts->mu);
        --starts->pending;
      }
      absl::MutexLock lock(&running_starts_->mu);
      --running_starts_->count;
    }
  }
  int callback = 0;
  if (cancel != nullptr) {
    callback = cancel->OnCancel([starts] {
      absl::MutexLock lock(&starts->mu);
      starts->cancelled = true;
    });
  }
  {
    absl::MutexLock lock(&starts->mu);
    starts->mu.Await(absl::Condition(
        +[](Starts* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
          return s->pending == 0 || s->cancelled;
        },
        starts.get()));
    if (starts->pending > 0) {
      selection.cancelled = true;
    } else {
      for (size_t i = 0; i < needed.size(); ++i) {
        if (results[i].ok() && !starts->results[i].ok()) results[i] = starts->results[i];
      }
    }
  }
  if (cancel != nullptr) cancel->RemoveCallback(callback);
  if (selection.cancelled) return selection;

  std::set<std::string> unavailable;
  std::set<std::string> model_names;
  for (size_t i = 0; i < needed.size(); ++i) {
    ManagedServer& server = *needed[i];
    if (!start) {
      for (tools::ToolSpec& spec : server.ToolSpecs()) {
        if (AnyMatches(tools_use, spec.qualified_name) &&
            model_names.insert(spec.model_name).second) {
          selection.tools.push_back(std::move(spec));
        }
      }
      continue;
    }
    if (std::optional<std::string> notice = server.TakeNotice(cancel)) {
      selection.notices.push_back(*std::move(notice));
    }
    if (!results[i].ok() && !server.has_listed()) {
      unavailable.insert(server.name());
      selection.notices.push_back(
          absl::StrCat("MCP server \"", server.name(), "\" is unavailable: ",
                       SafeDisplayText(std::string(results[i].message()), kMaxShownServerTextBytes),
                       "; its tools are left out"));
      continue;
    }
    for (tools::ToolSpec& spec : server.ToolSpecs()) {
      if (!AnyMatches(tools_use, spec.qualified_name)) continue;
      if (!model_names.insert(spec.model_name).second) {
        selection.notices.push_back(absl::StrCat("MCP tool ", spec.qualified_name,
                                                 " is left out: its model-facing name ",
                                                 spec.model_name, " is taken"));
        continue;
      }
      selection.tools.push_back(std::move(spec));
    }
    for (const std::string& name : server.LeftOutTools()) {
      if (!AnyMatches(tools_use, QualifiedToolName(server.name(), name))) continue;
      selection.notices.push_back(
          absl::StrCat("MCP tool \"", EscapedToolName(name), "\" of server \"", server.name(),
                       "\" is left out: its name has ", ToolNameProblem(name),
                       ", so rules could not name it exactly"));
    }
  }
  std::sort(selection.tools.begin(), selection.tools.end(),
            [](const tools::ToolSpec& a, const tools::ToolSpec& b) {
              return a.qualified_name < b.qualified_name;
            });
  if (!start) return selection;

  for (const std::string& pattern : tools_use) {
    if (!absl::StartsWith(pattern, "mcp/") || NamesAnyServer(pattern)) continue;
    bool matched = std::any_of(
        selection.tools.begin(), selection.tools.end(),
        [&](const tools::ToolSpec& t) { return tools::GlobMatch(pattern, t.qualified_name); });
    bool excused = std::any_of(unavailable.begin(), unavailable.end(), [&](const std::string& n) {
      return PatternMayMatchPrefix(pattern, QualifiedToolName(n, ""));
    });
    if (!matched && !excused) {
      selection.notices.push_back(absl::StrCat("tools.use: \"", pattern, "\" matches no MCP tool"));
    }
  }
  return selection;
}

std::vector<McpServerStatus> McpManager::Status() const {
  std::vector<std::shared_ptr<ManagedServer>> servers;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, server] : servers_) servers.push_back(server);
  }
  std::vector<McpServerStatus> statuses;
  for (const auto& server : servers) statuses.push_back(server->Status());
  std::stable_sort(
      statuses.begin(), statuses.end(),
      [](const McpServerStatus& a, const McpServerStatus& b) { return a.name < b.name; });
  return statuses;
}

std::vector<McpServerStatus> McpManager::StatusOf(
    const std::map<std::string, config::McpServerConfig>& configured) const {
  std::vector<McpServerStatus> statuses;
  for (const auto& [name, config] : configured) {
    config::McpServerConfig named = config;
    named.name = name;
    const std::string prefix = absl::StrCat(DefinitionKey(named), "\n");
    std::vector<std::shared_ptr<ManagedServer>> servers;
    {
      absl::MutexLock lock(&mu_);
      // Keys sort by definition, then root: one run per definition.
      for (auto it = servers_.lower_bound(prefix);
           it != servers_.end() && absl::StartsWith(it->first, prefix); ++it) {
        servers.push_back(it->second);
      }
    }
    if (servers.empty()) statuses.push_back(StoppedStatus(named));
    for (const auto& server : servers) statuses.push_back(server->Status());
  }
  return statuses;  // by name, then root
}

std::shared_ptr<ManagedServer> McpManager::FindServer(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto current = current_.find(name);
  if (current == current_.end()) return nullptr;
  auto it = servers_.find(current->second);
  return it == servers_.end() ? nullptr : it->second;
}

int McpManager::StopIdleServers() {
  std::vector<std::shared_ptr<ManagedServer>> servers;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, server] : servers_) servers.push_back(server);
  }
  int stopped = 0;
  for (const auto& server : servers) {
    stopped += server->StopIfIdle() ? 1 : 0;
    server->ReleaseDeadConnection();
  }
  // Definitions replaced by newer ones go once they no longer run.
  absl::MutexLock lock(&mu_);
  for (auto it = servers_.begin(); it != servers_.end();) {
    auto current = current_.find(ScopedName(it->second->config()));
    McpServerStatus status = it->second->Status();
    bool superseded = current != current_.end() && current->second != it->first;
    if (superseded && status.state != ServerState::kReady &&
        status.state != ServerState::kStarting) {
      it = servers_.erase(it);
    } else {
      ++it;
    }
  }
  return stopped;
}

void McpManager::DropSessionServers(const std::string& session_id,
                                    const std::map<std::string, config::McpServerConfig>& keep) {
  if (session_id.empty()) return;
  std::set<std::string> kept;
  for (const auto& [name, config] : keep) kept.insert(DefinitionKey(config));
  std::vector<std::shared_ptr<ManagedServer>> dropped;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = servers_.begin(); it != servers_.end();) {
      const config::McpServerConfig& config = it->second->config();
      if (config.session_id != session_id || kept.contains(DefinitionKey(config))) {
        ++it;
        continue;
      }
      if (auto current = current_.find(ScopedName(config));
          current != current_.end() && current->second == it->first) {
        current_.erase(current);
      }
      dropped.push_back(std::move(it->second));
      it = servers_.erase(it);
    }
  }
  if (dropped.empty()) return;
  // Stopping waits for the processes to exit: it runs on its own thread, so
  // that the caller (a session's queue) never waits; Shutdown waits for it.
  {
    absl::MutexLock lock(&running_starts_->mu);
    ++running_starts_->count;
  }
  auto stop_servers = [running = running_starts_, dropped] {
    StopInParallel(dropped);
    absl::MutexLock lock(&running->mu);
    --running->count;
  };
  absl::Status started = StartDetachedThread(
      absl::StrCat("stopping the MCP servers of session ", session_id), stop_servers);
  if (!started.ok()) {
    // No thread to be had: the caller waits for the stops instead, so that
    // no dropped server is left running.
    RAW_LOG(Warning) << started.message() << "; stopping them on this thread";
    StopInParallel(dropped);
    absl::MutexLock lock(&running_starts_->mu);
    --running_starts_->count;
  }
}

void McpManager::OnServerChanged() {
  {
    absl::MutexLock lock(&mu_);
    wake_ = true;
  }
  if (options_.on_status_change) options_.on_status_change();
}

void McpManager::IdleLoop() {
  while (true) {
    std::vector<std::shared_ptr<ManagedServer>> servers;
    {
      absl::MutexLock lock(&mu_);
      if (shut_down_) return;
      for (const auto& [key, server] : servers_) servers.push_back(server);
    }
    int64_t next = std::numeric_limits<int64_t>::max();
    for (const auto& server : servers) {
      if (std::optional<int64_t> at = server->NextIdleCheckMs()) next = std::min(next, *at);
    }
    servers.clear();
    const int64_t now = clock_->NowUnixMs();
    const int64_t wait_ms = std::clamp<int64_t>(
        next == std::numeric_limits<int64_t>::max() ? kMaxIdleWaitMs : next - now, 0,
        kMaxIdleWaitMs);
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(
                               +[](McpManager* self) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                 return self->wake_ || self->shut_down_;
                               },
                               this),
                           absl::Milliseconds(wait_ms));
      if (shut_down_) return;
      wake_ = false;
    }
    StopIdleServers();
  }
}

void McpManager::Shutdown() {
  std::map<std::string, std::shared_ptr<ManagedServer>> servers;
  {
    absl::MutexLock lock(&mu_);
    shut_down_ = true;
    servers = servers_;
  }
  if (idle_thread_.joinable()) idle_thread_.join();
  std::vector<std::shared_ptr<ManagedServer>> stopping;
  for (auto& [key, server] : servers) stopping.push_back(std::move(server));
  StopInParallel(stopping);
  // A stopped server's start returns at once.
  absl::MutexLock lock(&running_starts_->mu);
  running_starts_->mu.Await(absl::Condition(
      +[](RunningStarts* r) ABSL_NO_THREAD_SAFETY_ANALYSIS { return r->count == 0; },
      running_starts_.get()));
}

}  // namespace raw::mcp
