// McpClient: one MCP connection: the initialize handshake with version
// negotiation, the tool table (tools/list with pagination, refreshed on
// notifications/tools/list_changed), tools/call with progress and
// cancellation, and ping. A tool list of more than 8 MiB (the JSON of the
// tools kept) fails the listing.
//
// Protocol revisions: asks for 2025-11-25 and accepts a server that answers
// 2025-06-18 or 2025-03-26; any other answer fails Connect. Raw advertises
// no client capabilities except `roots` when McpClientOptions::root_dir is
// set. Tools whose execution requires tasks are left out
// of the table (Raw does not implement tasks), and so are tools whose names
// rules could not match exactly (ToolNameProblem, tool_naming.h).
//
// When the transport reports that the server forgot the session (HTTP) in
// answer to a tools/call it did not take, the client starts a new session
// (initialize again) and retries the call once. A call the server lost
// after accepting it is not retried (see HttpTransport).
//
// Ownership: owns its transport. Threads: a refresher thread re-lists the
// tools after list_changed (the transport threads only flag it). When it,
// or a thread of the transport, cannot be started, Connect fails with
// ResourceExhausted and the connection is closed.
// Thread-safety: every method may be called from any thread after Connect;
// Close (also run by the destructor) must not be called from a callback.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/mcp/json_rpc_peer.h"
#include "daemon/mcp/log_rate_limiter.h"
#include "daemon/mcp/mcp_tool.h"
#include "daemon/mcp/transport.h"

namespace raw::mcp {

// The most names of unusable tools one listing keeps for notices.
inline constexpr size_t kMaxLeftOutNames = 20;

// Newest first.
inline constexpr const char* kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26"};

struct McpClientOptions {
  std::string server_name;  // for logs and errors
  std::string client_name = "raw";
  std::string client_version;  // default: Raw's version
  // Limit for each request of the handshake and of the tool listing.
  int64_t request_timeout_ms = 30000;
  // Limit for all of Connect together: the handshake and every page of the
  // tool list (each request gets what is left, at most request_timeout_ms).
  // 0 = none beyond request_timeout_ms per request.
  int64_t connect_timeout_ms = 0;
  // Runs on the refresher thread after the tool table changed.
  std::function<void()> on_tools_changed;
  // Runs on a transport thread when the connection ends without Close().
  std::function<void(const absl::Status&)> on_closed;
  // An absolute directory: the client offers the `roots` capability and
  // answers roots/list with this one root (it never changes for the life
  // of the connection). Empty: no roots capability.
  std::string root_dir;
};

// "file://" and the percent-encoded absolute `path` (RFC 8089).
std::string FileUri(const std::string& path);
// The result of roots/list for the one root `dir`.
Json RootsList(const std::string& dir);

struct ServerInfo {
  std::string protocol_version;
  std::string name;
  std::string version;
  std::string instructions;
  bool has_tools = false;
};

struct ProgressUpdate {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

struct CallOptions {
  int64_t timeout_ms = 120000;  // 0 = no limit
  const CancelToken* cancel = nullptr;
  std::function<void(const ProgressUpdate&)> on_progress;  // on the calling thread
};

class McpClient {
 public:
  McpClient(std::unique_ptr<McpTransport> transport, McpClientOptions options);
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  // Starts the transport, performs the handshake and lists the tools. On
  // failure the transport is closed again.
  absl::Status Connect(const CancelToken* cancel = nullptr);

  // A protocol error or transport failure is an error status; a tool that
  // failed is a result with is_error.
  absl::StatusOr<CallToolResult> CallTool(const std::string& name, const Json& arguments,
                                          const CallOptions& options);
  absl::Status Ping(int64_t timeout_ms);

  std::vector<McpTool> tools() const;
  // The names of the tools left out of the last listing for being unusable
  // (tool_naming.h), as the server sent them; at most kMaxLeftOutNames.
  std::vector<std::string> left_out_tools() const;
  // 1 after Connect, +1 for every refresh of the table.
  uint64_t tools_generation() const;
  // Waits until tools_generation() >= `generation`; false on timeout.
  bool WaitForToolsGeneration(uint64_t generation, int64_t timeout_ms) const;

  ServerInfo server_info() const;
  // False once the connection ended (crash, Close).
  bool alive() const;
  McpTransport& transport() { return *transport_; }

  void Close();

 private:
  // Requests made before `deadline` (Connect's limit; InfiniteFuture for
  // none) time out by it at the latest.
  absl::Status Initialize(const CancelToken* cancel, absl::Time deadline);
  // peer_.Call within both `request.timeout_ms` and `deadline`; past the
  // deadline, the error names Connect's limit.
  absl::StatusOr<Json> CallBefore(absl::Time deadline, const std::string& method, Json params,
                                  RequestOptions request);
  // CallTool without its backstop (see Guarded in the .cc).
  absl::StatusOr<CallToolResult> CallToolOnce(const std::string& name, const Json& arguments,
                                              const CallOptions& options);
  struct ToolList {
    std::vector<McpTool> tools;
    std::vector<std::string> left_out;  // names, see left_out_tools()
  };
  // `cancel` (may be null) ends the listing early.
  absl::StatusOr<ToolList> ListTools(const CancelToken* cancel, absl::Time deadline);
  void OnNotification(const Message& notification);
  void RefresherLoop();
  // Starts a new session unless one was started since `seen_session`; waits
  // for one another caller is starting. `cancel` (may be null) ends the
  // wait and the start at once; the next call then starts the session.
  absl::Status Reinitialize(uint64_t seen_session, const CancelToken* cancel);
  absl::Status StartNewSession(uint64_t seen_session, const CancelToken* cancel);
  // The session a call may use: waits for a start under way, and starts one
  // when the last start failed or was given up.
  absl::StatusOr<uint64_t> UsableSession(const CancelToken* cancel);

  McpClientOptions options_;
  std::unique_ptr<McpTransport> transport_;
  JsonRpcPeer peer_;
  std::thread refresher_;
  // Keeps the server's notifications/message from flooding the log.
  LogRateLimiter message_log_limit_;

  // Serializes the starts of new sessions (Reinitialize). Never held across
  // a request to the server: callers that only read the session, and a
  // start that is given up, do not wait behind the server.
  absl::Mutex session_mu_;
  uint64_t session_ ABSL_GUARDED_BY(session_mu_) = 0;
  bool starting_session_ ABSL_GUARDED_BY(session_mu_) = false;
  // The last start of a new session failed or was given up: there is none.
  bool session_lost_ ABSL_GUARDED_BY(session_mu_) = false;

  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(session_mu_);
  ServerInfo info_ ABSL_GUARDED_BY(mu_);
  std::vector<McpTool> tools_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> left_out_ ABSL_GUARDED_BY(mu_);
  uint64_t tools_generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool refresh_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool alive_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw::mcp
