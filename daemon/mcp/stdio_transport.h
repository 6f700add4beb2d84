// StdioTransport: an MCP server run as a child process, speaking
// newline-delimited JSON-RPC on its stdin and stdout.
//
// One reader thread per server polls the child's stdout and stderr, its pidfd
// and a wake-up pipe: stdout lines are parsed and handed to on_message (a
// line that is not JSON-RPC is logged and skipped; a line longer than
// max_message_bytes ends the connection); stderr lines go to the daemon log,
// prefixed with the server's name, and the last few are kept for the error
// that reports a crash. Whatever of the server's text is logged is escaped
// first (LogText in log_text.h).
//
// Shutdown (Close) follows the MCP specification: close the child's stdin,
// wait up to stdin_close_grace_ms for it to exit, SIGTERM its process group,
// wait up to term_grace_ms, SIGKILL the group. Whatever the server left in its
// process group is killed once it exits. The child is always reaped.
//
// Thread-safety: Send may be called from any thread (writes are serialized);
// Close must not be called from a callback.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/line_framer.h"
#include "daemon/mcp/child_process.h"
#include "daemon/mcp/log_rate_limiter.h"
#include "daemon/mcp/transport.h"

namespace raw::mcp {

struct StdioTransportOptions {
  std::string server_name;  // for log lines and errors
  ChildProcessOptions process;
  size_t max_message_bytes = 64 * 1024 * 1024;
  int64_t stdin_close_grace_ms = 2000;
  int64_t term_grace_ms = 2000;
  // How long Send waits for a child that does not read its stdin.
  int64_t write_timeout_ms = 10000;
};

class StdioTransport : public McpTransport {
 public:
  explicit StdioTransport(StdioTransportOptions options);
  ~StdioTransport() override;
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  absl::Status Start(TransportCallbacks callbacks) override;
  absl::Status Send(const Json& message) override;
  void Close() override;
  std::string Describe() const override;

  // The child's pid (0 before Start or when it failed).
  int pid() const;

 private:
  void ReaderLoop();
  // Frames bytes read from the child's stdout and dispatches each complete
  // message. Returns false when a line, or the unfinished rest of one, is
  // longer than max_message_bytes.
  bool DispatchLines(std::string_view chunk);
  void LogStderrLines(bool flush);
  void Wake();
  std::string StderrTail() const;

  const StdioTransportOptions options_;
  TransportCallbacks callbacks_;
  std::unique_ptr<ChildProcess> child_;
  int pid_ = 0;
  int wake_[2] = {-1, -1};
  std::thread reader_;

  // Reader-thread state.
  std::string stdout_chunk_;
  LineFramer stdout_framer_;
  std::string stderr_buffer_;
  std::deque<std::string> stderr_tail_;
  int64_t skipped_lines_ = 0;
  // Keeps a chatty server's stderr from flooding the log (the tail above
  // still sees every line).
  LogRateLimiter stderr_log_limit_;

  mutable absl::Mutex mu_;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // How the child ended, once it did.
  bool exit_message_set_ ABSL_GUARDED_BY(mu_) = false;
  std::string exit_message_ ABSL_GUARDED_BY(mu_);
  // Serializes writes to the child's stdin (and its closing).
  absl::Mutex write_mu_ ABSL_ACQUIRED_AFTER(mu_);
};

}  // namespace raw::mcp
