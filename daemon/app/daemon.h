// Daemon: rawd's composition root. Owns every long-lived object of the
// daemon, builds them in dependency order, runs until asked to stop and
// tears them down in reverse:
//
//   state lock -> log file -> store -> HTTP client -> tool registry -> clock
//   -> variables -> MCP manager -> SessionManager -> RawService -> gRPC
//   server -> Unix-socket listener
//
// Everything else gets its collaborators by constructor from here.
//
// Threading: Run() is called once, on the main thread, with SIGTERM, SIGINT
// and SIGHUP blocked (main() blocks them before any thread exists, so every
// thread inherits the mask); the main thread then waits for those signals
// with a signalfd. RequestShutdown() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/paths.h"
#include "daemon/app/daemon_options.h"

namespace grpc {
class Server;
}

namespace raw {
class SystemClock;
namespace store {
class SessionStore;
}
namespace http {
class HttpClient;
}
namespace tools {
class ToolRegistry;
}
namespace loop {
class SessionManager;
}
namespace vars {
class VariableStore;
}
namespace mcp {
class McpManager;
}
namespace api {
class CallCounter;
class RawService;
class UdsListener;
}  // namespace api
}  // namespace raw

namespace raw::app {

class StateLock;

class Daemon {
 public:
  // `env` supplies the XDG variables, RAW_SOCKET and the model API keys.
  Daemon(DaemonOptions options, EnvLookup env);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Starts, serves until SIGTERM/SIGINT or a Shutdown call, stops. Returns
  // the process exit code: 0 after a clean stop, 1 when start-up failed
  // (the reason is logged and printed to stderr). A stop that passes its
  // deadline (kStopDeadline in the .cc) ends the process with 1 instead of
  // returning (stop_deadline.h).
  // REQUIRES: SIGTERM, SIGINT and SIGHUP are blocked in every thread.
  int Run();

  // Asks Run() to stop. Non-blocking; any thread.
  void RequestShutdown();

 private:
  absl::Status Start();
  // Blocks until a stop signal or RequestShutdown().
  void WaitForStop();
  void Stop();
  absl::Status CheckReadyFd();
  void SignalReady();
  void ReportStartupFailure(const absl::Status& status);
  // Logs, once per file for the life of the database, each older session
  // database found beside the current one (never opened or converted).
  void NoteOldDatabases();
  // Removes sessions past sessions.expire_after_days: at start-up and then
  // every kExpiryCheckIntervalMs while running.
  void PurgeExpiredSessions();
  static constexpr int kExpiryCheckIntervalMs = 60 * 60 * 1000;
  // How often a socket-activated rawd with --idle-exit looks for idleness.
  static constexpr int kIdleCheckIntervalMs = 250;

  const DaemonOptions options_;
  const EnvLookup env_;
  DaemonPaths paths_;
  bool log_file_open_ = false;
  std::vector<std::string> dir_warnings_;  // DirPermissionWarnings at start
  int stop_fd_ = -1;  // eventfd written by RequestShutdown

  // In construction order; destroyed in reverse by Stop().
  std::unique_ptr<StateLock> lock_;
  std::unique_ptr<store::SessionStore> store_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<tools::ToolRegistry> tools_;
  std::unique_ptr<SystemClock> clock_;
  std::unique_ptr<vars::VariableStore> variables_;
  std::unique_ptr<mcp::McpManager> mcp_;
  std::unique_ptr<loop::SessionManager> sessions_;
  std::unique_ptr<api::RawService> service_;
  // The calls the server serves (for the idle exit); outlives server_.
  std::unique_ptr<api::CallCounter> calls_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<api::UdsListener> listener_;
};

}  // namespace raw::app
