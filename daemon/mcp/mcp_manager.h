// McpManager: the daemon's MCP servers. Daemon-lifetime; created by the
// composition root and shared by every session.
//
// Select() turns an agent's `tools.use` patterns into ready-to-use tool
// specs: it finds the configured servers the `mcp/<server>/<tool>` patterns
// may cover, starts those not started yet (in parallel, each bounded by its
// startup_timeout_ms), and returns the matching tools plus notices about
// servers that could not be started, crashed or hung. Servers no pattern
// covers are never started; tools no pattern matches never appear.
//
// One connection per server definition: sessions whose `mcp_servers.<name>`
// entries are identical share it (and, for servers with `roots`, whose
// working directories, the root offered, are the same). A changed
// definition gets a new connection; the old one ends once idle. Lifecycle per server (start,
// restart with backoff, idle stop after idle_timeout_ms, hang detection):
// see ManagedServer. An idle thread stops unused servers.
//
// Ownership: owns the ManagedServers. The HTTP client and clock in Options
// must outlive it and every call in progress; ToolSpecs it returned may
// outlive it (their handlers then report that the server is gone).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/paths.h"
#include "common/time.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/mcp/managed_server.h"
#include "daemon/tools/tool.h"

namespace raw::mcp {

struct McpSelection {
  // Ordered by qualified name, so the definitions are the same bytes on
  // every request.
  std::vector<tools::ToolSpec> tools;
  // For the session (one line each), e.g.
  //   MCP server "github" is unavailable: failed to start: ...
  std::vector<std::string> notices;
  // The wait for servers to start was cut short by the cancel token; the
  // servers go on starting (for later calls), and `tools` is empty.
  bool cancelled = false;
  // Without `start`: a server the patterns cover has not listed its tools
  // since the daemon started, so `tools` lacks whatever it offers.
  bool unknown_tools = false;
};

struct McpManagerOptions {
  http::HttpClient* http = nullptr;  // needed for servers with a url
  const Clock* clock = nullptr;      // null: the system clock
  EnvLookup env;                     // null: the process environment
  int64_t initial_backoff_ms = 1000;
  int64_t max_backoff_ms = 60000;
  int64_t stdin_close_grace_ms = 2000;
  int64_t term_grace_ms = 2000;
  // Run a thread that stops servers unused for their idle_timeout_ms
  // (tests call StopIdleServers themselves).
  bool stop_idle_servers = true;
  // Runs after any server's state changed (no lock held, any thread).
  std::function<void()> on_status_change;
  // Hides known secret values in what servers' errors and notices quote
  // (see ManagedServerOptions::redact); null = nothing is hidden.
  RedactFn redact;
  // See ManagedServerOptions::hang_ping_timeout_ms; for tests.
  int64_t hang_ping_timeout_ms = 0;
};

class McpManager {
 public:
  explicit McpManager(McpManagerOptions options);
  ~McpManager();
  McpManager(const McpManager&) = delete;
  McpManager& operator=(const McpManager&) = delete;

  // `expand` resolves variable references ("${NAME}") in env and header
  // values; it is called on this thread only, for the servers started.
  // `root_dir` (absolute) is offered as the root of servers configured with
  // `roots`. With `start` false nothing is started or connected and no
  // notice is taken: only the tools of servers that have listed them are
  // returned (what a context estimate needs without side effects).
  // A cancelled `cancel` (may be null) ends the wait for starting servers
  // at once (McpSelection::cancelled).
  McpSelection Select(const std::vector<std::string>& tools_use,
                      const std::map<std::string, config::McpServerConfig>& servers,
                      const ExpandFn& expand, const std::string& root_dir = "",
                      bool start = true, const CancelToken* cancel = nullptr);

  // Every known server, by name.
  std::vector<McpServerStatus> Status() const;
  // Each server of `configured` (config key -> definition), by name: the
  // status of each connection made for exactly that definition (one per
  // root for servers with `roots`, by root), or stopped when there is none.
  // Never starts anything.
  std::vector<McpServerStatus> StatusOf(
      const std::map<std::string, config::McpServerConfig>& configured) const;

  // A session's own servers (McpServerConfig::session_id set) are keyed by
  // their session too, so no other session ever shares their connection.
  // Select starts them like configured ones, but their env and header
  // values are used as given (no variable references are expanded).
  // This forgets every server of session `session_id` whose definition is
  // not one of `keep` (empty: all of them), so that a replaced or unloaded
  // session leaves nothing running, and stops them (all at once) off the
  // caller's thread: it returns at once (Shutdown waits for the stops). A call in progress
  // on a stopped server fails with an error result.
  void DropSessionServers(const std::string& session_id,
                          const std::map<std::string, config::McpServerConfig>& keep = {});

  // Stops the servers idle for their idle_timeout_ms; returns how many.
  // Also closes the connections of servers that stopped unexpectedly
  // between calls (ManagedServer::ReleaseDeadConnection).
  int StopIdleServers();

  // Stops every server, all at once, and waits for the stops and for the
  // starts in progress (which end at once); later Selects return nothing.
  // Takes as long as the slowest stop, not the sum of them: at most a
  // stdio server's stdin_close_grace_ms plus term_grace_ms (then SIGKILL),
  // or an HTTP server's delete_timeout_ms. Idempotent.
  void Shutdown();

  // The server currently defined under `name`, or null.
  std::shared_ptr<ManagedServer> FindServer(const std::string& name) const;

 private:
  std::shared_ptr<ManagedServer> GetOrCreate(const config::McpServerConfig& config,
                                             const std::string& root_dir);
  void OnServerChanged();
  void IdleLoop();

  McpManagerOptions options_;
  std::shared_ptr<const Clock> clock_;

  mutable absl::Mutex mu_;
  // By definition (all fields of the config).
  std::map<std::string, std::shared_ptr<ManagedServer>> servers_ ABSL_GUARDED_BY(mu_);
  // Scoped name (ScopedName in the .cc) -> key of its latest definition.
  std::map<std::string, std::string> current_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  bool wake_ ABSL_GUARDED_BY(mu_) = false;
  std::thread idle_thread_;
  // Server starts (Select) and stops (DropSessionServers) that run on
  // detached threads, counted so that Shutdown waits for them; shared so
  // that a finishing thread never touches a destroyed manager.
  struct RunningStarts {
    absl::Mutex mu;
    int count ABSL_GUARDED_BY(mu) = 0;
  };
  const std::shared_ptr<RunningStarts> running_starts_ = std::make_shared<RunningStarts>();
};

}  // namespace raw::mcp
