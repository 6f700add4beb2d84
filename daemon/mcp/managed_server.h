// ManagedServer: the daemon's handle on one MCP server definition: its
// connection (an McpClient, started lazily), its state, restarts with
// backoff, the idle stop, and the tools it listed last.
//
// States: stopped (never started, or stopped when idle) → starting → ready;
// a failed start, a crash or a hang → failed. The next use of a failed
// server starts it again: at once after the first failure, then with
// exponential backoff (initial_backoff_ms, doubling up to max_backoff_ms)
// between consecutive failed attempts; a call that succeeds resets the
// count. A call that gets no answer within call_timeout_ms is cancelled and
// returns at once; a ping then checks the server on a thread of its own
// (for at most the call timeout, within 100 ms to 5 s), and a server that
// does not answer it either is stopped as hung. Until that verdict, later
// uses of the server (calls, and the notices a selection takes) wait for it.
//
// The tool list survives stops and failures, so a selection stays the same
// bytes while the server restarts; calls made meanwhile get errors.
// Expanded header and environment values live only in memory here.
//
// Text that may quote the server (its stderr, its error messages) leaves
// only cleaned: last_error in Status(), notices, and the errors of
// EnsureReady and Call are valid UTF-8 (ill-formed bytes become U+FFFD)
// and pass through Options::redact, which hides known secret values.
// last_error, notices and the errors of Call (which become a tool result
// the model reads and every front end shows) are also safe to show
// (control and bidirectional formatting characters become U+FFFD:
// SafeDisplayText) and at most kMaxShownServerTextBytes.
//
// Ownership: owned through shared_ptr by McpManager (a call in progress and a
// hang check hold it too; the ToolSpec handlers hold it weakly). Shares the clock; the
// HTTP client in Options must outlive every call.
// Thread-safety: thread-safe. Callbacks from the client run on its threads
// and only update state; clients are closed on callers' threads (or a hang
// check's). Threads: a start begun by a call (EnsureReady with a cancel
// token) and the hang check after a timed-out call each run on a thread of
// their own, which holds the server and which Shutdown() waits for.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/paths.h"
#include "common/time.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/mcp/mcp_client.h"
#include "daemon/tools/tool.h"

namespace raw::mcp {

// The most of a server's words that a status or a notice carries: its
// stderr tail is short, but an error message it sends has no bound.
inline constexpr size_t kMaxShownServerTextBytes = 4096;

using ExpandFn = std::function<absl::StatusOr<std::string>(const std::string&)>;
// Returns its argument with known secret values hidden (vars::Redact).
// Called on any thread, never under a ManagedServer's lock but possibly
// under McpManager's: it must be thread-safe and must not call back into
// the MCP layer.
using RedactFn = std::function<std::string(const std::string&)>;

enum class ServerState { kStopped, kStarting, kReady, kFailed };
const char* ServerStateName(ServerState state);

struct McpServerStatus {
  std::string name;
  std::string transport;  // "stdio" or "http"
  std::string endpoint;   // the command's program, or the URL without query
  ServerState state = ServerState::kStopped;
  std::string last_error;
  std::string protocol_version;
  std::vector<std::string> tools;  // as last listed
  std::string root_dir;            // the root offered to it; empty = none
  int consecutive_failures = 0;
  std::string session_id;          // a session's own server: its session
};

// The status of a configured server that has no connection (state stopped).
McpServerStatus StoppedStatus(const config::McpServerConfig& config);

struct ManagedServerOptions {
  http::HttpClient* http = nullptr;
  std::shared_ptr<const Clock> clock;  // required
  // The daemon's environment: stdio servers get HOME, LOGNAME, PATH, SHELL,
  // TERM, USER, LANG, LC_ALL, LC_CTYPE, TMPDIR and TZ from it, plus their
  // configured env.
  EnvLookup env;
  int64_t initial_backoff_ms = 1000;
  int64_t max_backoff_ms = 60000;
  int64_t stdin_close_grace_ms = 2000;
  int64_t term_grace_ms = 2000;
  // Runs (on any thread, without locks held) after a state change.
  std::function<void()> on_change;
  // The root offered to a server configured with `roots` (the session's
  // working directory); empty otherwise.
  std::string root_dir;
  // Applied to every text that may quote the server; null = none (the text
  // is still made valid UTF-8).
  RedactFn redact;
  // How long the ping after a timed-out call waits; 0 = the call timeout,
  // within [100 ms, 5 s]. For tests.
  int64_t hang_ping_timeout_ms = 0;
};

class ManagedServer : public std::enable_shared_from_this<ManagedServer> {
 public:
  ManagedServer(config::McpServerConfig config, ManagedServerOptions options);
  ~ManagedServer();
  ManagedServer(const ManagedServer&) = delete;
  ManagedServer& operator=(const ManagedServer&) = delete;

  const std::string& name() const { return config_.name; }
  const config::McpServerConfig& config() const { return config_; }

  // Resolves the variable references of env and headers; the error names
  // the field. Each call resolves them again (cheap: the variable store
  // keeps values until a definition changes): a server already running
  // keeps what it started with, the next start takes the latest.
  absl::Status Prepare(const ExpandFn& expand);

  // Returns once the server is ready: starts it, or waits for a start in
  // progress. Fails with the start's error, or at once while backing off.
  // With `cancel`, the start runs on a thread of its own and the caller
  // waits for it: `cancel` firing ends the wait at once with Cancelled,
  // while the start carries on for the next use.
  absl::Status EnsureReady(const CancelToken* cancel = nullptr);

  // Calls a tool, starting the server if needed. Statuses: Cancelled when
  // `cancel` fired (also while the server starts); DeadlineExceeded after call_timeout_ms;
  // Unavailable for a server that is down. A tool's own failure is a result with is_error.
  absl::StatusOr<CallToolResult> Call(const std::string& tool, const Json& arguments,
                                      const CancelToken& cancel,
                                      std::function<void(const ProgressUpdate&)> on_progress);

  // The model-ready tools as last listed, built once per listing; empty
  // before the first successful start (see has_listed).
  std::vector<tools::ToolSpec> ToolSpecs();
  // The names of the tools the last listing left out for being unusable
  // (McpClient::left_out_tools), as the server sent them.
  std::vector<std::string> LeftOutTools() const;
  bool has_listed() const;
  // Moves on with every listing (first start, restarts, list_changed
  // refreshes, including one answered while the server was starting).
  uint64_t tools_generation() const;
  // Waits until tools_generation() >= `generation`; false on timeout.
  bool WaitForToolsGeneration(uint64_t generation, int64_t timeout_ms) const;

  // Stops a ready server with no call in flight that was unused for
  // idle_timeout_ms; true when it did.
  bool StopIfIdle();
  // Closes the connection of a server that stopped unexpectedly while no
  // call was in flight (its pipes, pidfd and writer thread), which would
  // otherwise wait for the server's next use; true when it did. The server
  // stays failed and restarts when next used, as before.
  bool ReleaseDeadConnection();
  // When StopIfIdle or ReleaseDeadConnection should next look (clock ms),
  // or nullopt when neither has anything to do.
  std::optional<int64_t> NextIdleCheckMs() const;
  // Stops the server for good (daemon shutdown): later uses fail.
  void Shutdown();

  McpServerStatus Status() const;
  // A notice about a crash or hang not reported yet; cleared by the call.
  // Waits first for the verdict of a hang check in progress (see above),
  // unless `cancel` fires.
  std::optional<std::string> TakeNotice(const CancelToken* cancel = nullptr);
  // The pid of a running stdio server (0 otherwise); for tests.
  int pid() const;

 private:
  std::unique_ptr<McpTransport> MakeTransport() const;
  // EnsureReady with its cancel callback in place.
  absl::Status AwaitReady(const CancelToken* cancel);
  // Connects a new client for connection `epoch` (state kStarting) and
  // records the outcome in the state.
  absl::Status Start(uint64_t epoch);
  void OnClosed(uint64_t epoch, const absl::Status& reason);
  // REQUIRES: mu_ held. Records a failure and when to try again.
  void RecordFailure(std::string error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a failed call: a crash stops the server; a timeout starts a hang
  // check (CheckHung on a thread of its own).
  void HandleCallFailure(const std::shared_ptr<McpClient>& client, uint64_t epoch,
                         const absl::Status& status);
  // Pings `client`; stops connection `epoch` as hung when it gets no answer.
  void CheckHung(const std::shared_ptr<McpClient>& client, uint64_t epoch);
  // Stops connection `epoch` (if still the ready one) as failed, with a notice.
  void StopFailed(uint64_t epoch, const std::string& failure);
  // True while a hang check of the current, ready connection runs.
  bool CheckingLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Changed() const;
  // `text` as valid UTF-8 with known secrets hidden. REQUIRES: mu_ not held.
  std::string Clean(const std::string& text) const;
  absl::Status Clean(const absl::Status& status) const;
  // Clean, then safe to show (SafeDisplayText).
  absl::Status Shown(const absl::Status& status) const;

  const config::McpServerConfig config_;
  const ManagedServerOptions options_;

  mutable absl::Mutex mu_;
  ServerState state_ ABSL_GUARDED_BY(mu_) = ServerState::kStopped;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  // Cancels the start in progress (set while kStarting), so that Shutdown
  // need not wait for a server that does not answer.
  std::shared_ptr<CancelToken> start_cancel_ ABSL_GUARDED_BY(mu_);
  // Starts running on threads of their own (see EnsureReady).
  int start_threads_ ABSL_GUARDED_BY(mu_) = 0;
  // Hang checks running (each on a thread of its own, which Shutdown waits
  // for), and the connection the newest one checks (0 = none).
  int hang_checks_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t hang_check_epoch_ ABSL_GUARDED_BY(mu_) = 0;
  bool prepared_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::string> env_ ABSL_GUARDED_BY(mu_);
  http::Headers headers_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<McpClient> client_ ABSL_GUARDED_BY(mu_);
  // Bumped for every connection, so callbacks of an old one are ignored.
  uint64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_ ABSL_GUARDED_BY(mu_);
  std::string protocol_version_ ABSL_GUARDED_BY(mu_);
  int failures_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_attempt_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int inflight_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_used_ms_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<std::string> notice_ ABSL_GUARDED_BY(mu_);
  bool listed_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<McpTool> tools_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> left_out_ ABSL_GUARDED_BY(mu_);
  uint64_t tools_generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<tools::ToolSpec> specs_ ABSL_GUARDED_BY(mu_);
  uint64_t specs_generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::mcp
