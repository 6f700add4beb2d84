#include "daemon/mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "common/thread_start.h"
#include "daemon/mcp/json_rpc.h"
#include "daemon/mcp/log_text.h"

namespace raw::mcp {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr size_t kChunkBytes = 64 * 1024;
constexpr int kReadsPerWake = 16;
constexpr size_t kMaxLoggedLine = kMaxLoggedServerTextBytes;
constexpr size_t kStderrTailLines = 3;
constexpr size_t kStderrTailLineBytes = 300;
// Lines that are not JSON are logged up to this many times per server.
constexpr int64_t kMaxLoggedSkips = 20;
// How long the writer waits for the exit of a child that closed its stdin
// before it fails the queued requests (the exit says more).
constexpr int64_t kExitWaitMs = 2000;

enum class Phase { kRunning, kWaitExit, kTerminated, kKilled };

int MillisUntil(SteadyClock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

// Reads what `fd` holds now (at most `max_reads` chunks) into `sink`.
// Returns false at end-of-file or on an error.
bool ReadSome(int fd, std::string& sink, int max_reads) {
  char buf[kChunkBytes];
  for (int i = 0; i < max_reads; ++i) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      sink.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return false;
    } else if (errno == EAGAIN) {
      return true;
    } else if (errno != EINTR) {
      return false;
    }
  }
  return true;
}

std::string Clip(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "…";
}

}  // namespace

StdioTransport::StdioTransport(StdioTransportOptions options)
    : options_(std::move(options)),
      stdout_framer_(options_.max_message_bytes),
      stderr_log_limit_(absl::StrCat("stderr lines of mcp server ", options_.server_name)) {}

StdioTransport::~StdioTransport() {
  Close();
  for (int* pipe : {wake_, writer_wake_}) {
    for (int i = 0; i < 2; ++i) {
      if (pipe[i] >= 0) close(pipe[i]);
      pipe[i] = -1;
    }
  }
}

absl::Status StdioTransport::Start(TransportCallbacks callbacks) {
  callbacks_ = std::move(callbacks);
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0 ||
      pipe2(writer_wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError("cannot create a pipe for the MCP reader and writer threads");
  }
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Spawn(options_.process);
  if (!child.ok()) return child.status();
  child_ = *std::move(child);
  pid_ = child_->pid();
  // When a thread cannot be started, the start fails and leaves nothing
  // behind: no thread, and no child (ChildProcess's destructor kills its
  // group and reaps it). The writer goes first: until Start returns nothing
  // is queued, so it only waits, and a refused reader ends it at once.
  absl::StatusOr<std::thread> writer =
      StartThread(absl::StrCat("the writer of MCP server \"", options_.server_name, "\""),
                  [this] { WriterLoop(); });
  if (!writer.ok()) {
    child_.reset();
    pid_ = 0;
    return writer.status();
  }
  absl::StatusOr<std::thread> reader =
      StartThread(absl::StrCat("the reader of MCP server \"", options_.server_name, "\""),
                  [this] { ReaderLoop(); });
  if (!reader.ok()) {
    {
      absl::MutexLock lock(&mu_);
      closing_ = true;
    }
    writer->join();
    child_.reset();
    pid_ = 0;
    return reader.status();
  }
  writer_ = *std::move(writer);
  reader_ = *std::move(reader);
  return absl::OkStatus();
}

absl::Status StdioTransport::Send(const Json& message) {
  if (child_ == nullptr) return absl::FailedPreconditionError("the server was not started");
  Outgoing outgoing;
  outgoing.line = DumpJson(message);
  outgoing.line.push_back('\n');
  outgoing.bytes = outgoing.line.size();
  if (IsRequest(message)) outgoing.request_id = MessageId(message);
  absl::MutexLock lock(&mu_);
  if (closing_) return absl::FailedPreconditionError("the connection is closed");
  if (!input_failure_.empty()) return absl::UnavailableError(input_failure_);
  if (queue_.size() >= options_.max_queued_messages || queued_bytes_ >= options_.max_queued_bytes) {
    ++dropped_;
    std::string what = message.contains("method") ? message.value("method", "a message")
                                                  : std::string("a response");
    return absl::UnavailableError(
        absl::StrCat("the server does not read its input: ", queue_.size(), " messages (",
                     queued_bytes_, " bytes) wait for it; ", what, " was not sent"));
  }
  queued_bytes_ += outgoing.bytes;
  queue_.push_back(std::move(outgoing));
  return absl::OkStatus();
}

void StdioTransport::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    closing_ = true;
  }
  if (child_ != nullptr) {
    absl::MutexLock lock(&stdin_mu_);
    child_->CloseStdin();
  }
  WakeWriter();
  Wake();
  if (writer_.joinable()) writer_.join();
  if (reader_.joinable()) reader_.join();
  int64_t dropped;
  {
    absl::MutexLock lock(&mu_);
    dropped = dropped_;
  }
  if (dropped > 0) {
    RAW_LOG(Warning) << "mcp server " << options_.server_name << ": " << dropped
                     << " messages for it were dropped: it did not read its input";
  }
}

std::string StdioTransport::Describe() const { return absl::StrCat("pid ", pid_); }

int StdioTransport::pid() const { return pid_; }

void StdioTransport::Wake() {
  if (wake_[1] >= 0) {
    char byte = 1;
    ssize_t ignored = write(wake_[1], &byte, 1);
    (void)ignored;
  }
}

void StdioTransport::WakeWriter() {
  if (writer_wake_[1] >= 0) {
    char byte = 1;
    ssize_t ignored = write(writer_wake_[1], &byte, 1);
    (void)ignored;
  }
}

void StdioTransport::WriterLoop() {
  while (true) {
    std::string line;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closing_ || !queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (closing_) return;
      // The message stays queued (and counted) until it is written whole.
      line = std::move(queue_.front().line);
    }
    absl::Status written = WriteLine(line);
    if (!written.ok()) {
      if (!absl::IsCancelled(written)) FailInput(written);
      return;
    }
    absl::MutexLock lock(&mu_);
    queued_bytes_ -= queue_.front().bytes;
    queue_.pop_front();
  }
}

absl::Status StdioTransport::WriteLine(std::string_view line) {
  size_t written = 0;
  while (true) {
    int fd;
    {
      // Never held while waiting: the write does not block.
      absl::MutexLock lock(&stdin_mu_);
      absl::StatusOr<size_t> n = child_->WriteStdinSome(line.substr(written));
      if (absl::IsFailedPrecondition(n.status())) {
        return absl::CancelledError("the connection is closed");
      }
      if (!n.ok()) return n.status();
      written += *n;
      if (written == line.size()) return absl::OkStatus();
      if (*n > 0) continue;
      fd = child_->stdin_fd();
    }
    // Close closes the pipe and then wakes this poll; a descriptor closed
    // (or even reused) meanwhile only makes the next write see the close.
    pollfd fds[2] = {{fd, POLLOUT, 0}, {writer_wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) {
      return absl::UnavailableError("the server's input could not be watched (poll failed)");
    }
    if (fds[1].revents != 0) {
      char drain[64];
      while (read(writer_wake_[0], drain, sizeof drain) > 0) {
      }
      absl::MutexLock lock(&mu_);
      if (closing_) return absl::CancelledError("the connection is closed");
    }
  }
}

void StdioTransport::FailInput(const absl::Status& error) {
  {
    absl::MutexLock lock(&mu_);
    input_failed_ = true;
  }
  {
    absl::MutexLock lock(&stdin_mu_);
    child_->CloseStdin();
  }
  Wake();  // the reader stops the child
  // A closed stdin usually means the child is exiting: how it ended says
  // more than the broken pipe.
  std::deque<Outgoing> unsent;
  std::string reason;
  bool closing;
  {
    absl::MutexLock lock(&mu_);
    auto ended = [this]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return exit_message_set_ || closing_; };
    mu_.AwaitWithTimeout(absl::Condition(&ended), absl::Milliseconds(kExitWaitMs));
    reason = exit_message_set_ ? exit_message_ : std::string(error.message());
    input_failure_ = reason;
    unsent.swap(queue_);
    queued_bytes_ = 0;
    closing = closing_;
  }
  if (closing || !callbacks_.on_request_failed) return;
  for (const Outgoing& outgoing : unsent) {
    if (!outgoing.request_id.is_null()) {
      callbacks_.on_request_failed(outgoing.request_id, absl::UnavailableError(reason));
    }
  }
}

bool StdioTransport::DispatchLines(std::string_view chunk) {
  auto on_line = [this](std::string line) {
    absl::StatusOr<Json> parsed = ParseJson(line);
    if (!parsed.ok() || !(parsed->is_object() || parsed->is_array())) {
      if (++skipped_lines_ <= kMaxLoggedSkips) {
        RAW_LOG(Warning) << "mcp server " << options_.server_name
                         << ": skipping a stdout line that is not JSON-RPC: " << LogText(line, 200);
      }
      return true;
    }
    // The text is parsed: free it before the message is handled, which
    // copies the result (a large result is otherwise held three times).
    std::string().swap(line);
    if (parsed->is_array()) {
      for (const Json& element : *parsed) callbacks_.on_message(element);
    } else {
      callbacks_.on_message(*parsed);
    }
    return true;
  };
  // An overlong message ends the connection, as soon as its unfinished rest
  // is over the limit: a server may never send the newline.
  auto on_overlong = [](size_t) { return false; };
  return stdout_framer_.Feed(chunk, on_line, on_overlong) && !stdout_framer_.skipping();
}

void StdioTransport::LogStderrLines(bool flush) {
  size_t start = 0;
  auto emit = [this](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return;
    LogRateLimiter::Verdict verdict = stderr_log_limit_.Admit();
    if (!verdict.summary.empty()) RAW_LOG(Warning) << verdict.summary;
    if (verdict.log) {
      RAW_LOG(Info) << "mcp server " << options_.server_name << ": "
                    << LogText(line, kMaxLoggedLine);
    }
    // Kept as sent: errors that quote it are cleaned where they are shown,
    // and escaped where they are logged.
    stderr_tail_.push_back(Clip(line, kStderrTailLineBytes));
    if (stderr_tail_.size() > kStderrTailLines) stderr_tail_.pop_front();
  };
  while (true) {
    size_t end = stderr_buffer_.find('\n', start);
    if (end == std::string::npos) break;
    emit(std::string_view(stderr_buffer_.data() + start, end - start));
    start = end + 1;
  }
  stderr_buffer_.erase(0, start);
  // An endless line is logged in pieces rather than held.
  if (flush || stderr_buffer_.size() > kMaxLoggedLine) {
    emit(stderr_buffer_);
    stderr_buffer_.clear();
  }
  if (flush) {
    if (std::string summary = stderr_log_limit_.TakeSummary(); !summary.empty()) {
      RAW_LOG(Warning) << summary;
    }
  }
}

std::string StdioTransport::StderrTail() const {
  if (stderr_tail_.empty()) return "";
  return absl::StrCat("; its last output on stderr: ", absl::StrJoin(stderr_tail_, " | "));
}

void StdioTransport::ReaderLoop() {
  Phase phase = Phase::kRunning;
  SteadyClock::time_point deadline;
  bool exited = false;
  std::string failure;  // why the transport ended the child itself
  bool closed_stdout = false;
  bool closed_stdin = false;  // a write failed: the child closed its stdin
  auto enter = [&](Phase next, int signal, int64_t wait_ms) {
    if (signal != 0) child_->SignalGroup(signal);
    phase = next;
    deadline = SteadyClock::now() + std::chrono::milliseconds(wait_ms);
  };
  while (!exited) {
    bool closing;
    bool input_failed;
    {
      absl::MutexLock lock(&mu_);
      closing = closing_;
      input_failed = input_failed_;
    }
    if ((closing || input_failed) && phase == Phase::kRunning) {
      // A child that closed its stdin gets the same grace as on Close.
      closed_stdin = !closing;
      enter(Phase::kWaitExit, 0, options_.stdin_close_grace_ms);
    }
    int timeout = -1;
    if (phase == Phase::kWaitExit || phase == Phase::kTerminated) {
      timeout = MillisUntil(deadline);
      if (timeout == 0) {
        if (phase == Phase::kWaitExit) {
          if (closed_stdout && failure.empty()) {
            failure = "closed its standard output and was stopped";
          }
          if (closed_stdin && failure.empty()) failure = "closed its input and was stopped";
          enter(Phase::kTerminated, SIGTERM, options_.term_grace_ms);
        } else {
          enter(Phase::kKilled, SIGKILL, 0);
        }
        continue;
      }
    }
    pollfd fds[4] = {{child_->stdout_fd(), POLLIN, 0},
                     {child_->stderr_fd(), POLLIN, 0},
                     {wake_[0], POLLIN, 0},
                     {child_->pidfd(), POLLIN, 0}};
    int rc = poll(fds, 4, timeout);
    if (rc < 0 && errno != EINTR) {
      failure = "could not be watched (poll failed)";
      enter(Phase::kKilled, SIGKILL, 0);
      break;
    }
    if (rc <= 0) continue;
    if (fds[0].revents != 0) {
      stdout_chunk_.clear();
      if (!ReadSome(child_->stdout_fd(), stdout_chunk_, kReadsPerWake)) child_->CloseStdout();
      if (!DispatchLines(stdout_chunk_)) {
        failure = absl::StrCat("sent a message longer than ", options_.max_message_bytes,
                               " bytes and was stopped");
        child_->CloseStdout();
        enter(Phase::kKilled, SIGKILL, 0);
      }
    }
    if (fds[1].revents != 0) {
      if (!ReadSome(child_->stderr_fd(), stderr_buffer_, kReadsPerWake)) child_->CloseStderr();
      LogStderrLines(/*flush=*/false);
    }
    if (fds[2].revents != 0) {
      char drain[64];
      while (read(wake_[0], drain, sizeof drain) > 0) {
      }
    }
    if (fds[3].revents != 0) exited = true;
    if (child_->pidfd() < 0 && child_->stdout_fd() < 0 && child_->stderr_fd() < 0) {
      // Without a pidfd, the end of both outputs stands for the exit.
      if (phase == Phase::kRunning) enter(Phase::kKilled, SIGKILL, 0);
      exited = true;
    }
    if (!exited && phase == Phase::kRunning && child_->stdout_fd() < 0) {
      // Usually the child is exiting; it gets the same grace as on Close.
      closed_stdout = true;
      enter(Phase::kWaitExit, 0, options_.stdin_close_grace_ms);
    }
  }
  // Take what the child wrote before it exited.
  if (child_->stdout_fd() >= 0) {
    stdout_chunk_.clear();
    ReadSome(child_->stdout_fd(), stdout_chunk_, 64);
    DispatchLines(stdout_chunk_);
  }
  if (child_->stderr_fd() >= 0) ReadSome(child_->stderr_fd(), stderr_buffer_, 64);
  LogStderrLines(/*flush=*/true);
  // Whatever the server started in its group goes with it.
  child_->SignalGroup(SIGKILL);
  std::string how = child_->Reap();
  std::string message = failure.empty()
                            ? absl::StrCat("the server process ", how, StderrTail())
                            : absl::StrCat("the server process ", failure, StderrTail());
  bool closing;
  {
    absl::MutexLock lock(&mu_);
    closing = closing_;
    exit_message_ = message;
    exit_message_set_ = true;
  }
  if (closing) {
    RAW_LOG(Info) << "mcp server " << options_.server_name << " (pid " << pid_ << ") " << how;
    return;
  }
  RAW_LOG(Warning) << "mcp server " << options_.server_name << ": " << LogText(message);
  if (callbacks_.on_closed) callbacks_.on_closed(absl::UnavailableError(message));
}

}  // namespace raw::mcp
