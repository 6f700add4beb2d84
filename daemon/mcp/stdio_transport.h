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
// One writer thread per server writes the outgoing queue to the child's
// stdin, one whole message after another. Send only queues: it never waits
// for the child to read, so no caller (a turn, an interrupt, the reader
// thread answering the server's ping) is held by a server that stops
// reading. A message finding max_queued_messages messages or
// max_queued_bytes bytes already waiting is not sent (a single message is
// never too large): Send returns Unavailable ("the server does not read its
// input") and the drop is counted (the count is logged on Close). A write the child cuts short
// (it closed its stdin) ends the connection: no other message may follow
// part of one. Queued requests fail, and the child is stopped as below
// unless it exits by itself, whereupon on_closed reports it.
//
// Shutdown (Close) follows the MCP specification: close the child's stdin
// (at once: the writer never holds it while it waits), wait up to
// stdin_close_grace_ms for it to exit, SIGTERM its process group, wait up to
// term_grace_ms, SIGKILL the group. Whatever the server left in its process
// group is killed once it exits. The child is always reaped.
//
// When the reader or the writer thread cannot be started, Start fails with
// ResourceExhausted; the child is killed and reaped first.
//
// Thread-safety: Send may be called from any thread; Close must not be
// called from a callback.
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
  // Bounds of the queue of messages not yet written to the child's stdin
  // (its pipe holds 64 KiB more): far more than a server that reads its
  // input leaves waiting.
  size_t max_queued_messages = 1024;
  size_t max_queued_bytes = 16 * 1024 * 1024;
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
  // A message waiting for the writer; `request_id` is null unless it is a
  // request (which fails, reported by on_request_failed, if the connection
  // ends before it is written).
  struct Outgoing {
    std::string line;
    size_t bytes = 0;
    Json request_id;
  };

  void ReaderLoop();
  // Frames bytes read from the child's stdout and dispatches each complete
  // message. Returns false when a line, or the unfinished rest of one, is
  // longer than max_message_bytes.
  bool DispatchLines(std::string_view chunk);
  void LogStderrLines(bool flush);
  void Wake();
  std::string StderrTail() const;

  void WriterLoop();
  // Writes all of `line` to the child's stdin, waiting for it to read as
  // long as it takes. Cancelled when Close began; the child's write error
  // when it closed its stdin.
  absl::Status WriteLine(std::string_view line);
  // After a write failed: the connection ends (see the file comment).
  void FailInput(const absl::Status& error);
  void WakeWriter();

  const StdioTransportOptions options_;
  TransportCallbacks callbacks_;
  std::unique_ptr<ChildProcess> child_;
  int pid_ = 0;
  int wake_[2] = {-1, -1};
  int writer_wake_[2] = {-1, -1};
  std::thread reader_;
  std::thread writer_;

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
  // The outgoing queue; its front is the message being written.
  std::deque<Outgoing> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  // Set when a write failed: the reader stops the child.
  bool input_failed_ ABSL_GUARDED_BY(mu_) = false;
  // Then, once the queue was failed: why Send fails from now on.
  std::string input_failure_ ABSL_GUARDED_BY(mu_);
  // Guards the child's stdin: held by the writer only for a write that does
  // not block, so Close can always take it at once to close the pipe.
  absl::Mutex stdin_mu_;
};

}  // namespace raw::mcp
