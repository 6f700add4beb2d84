#include "clients/acp/stdio_transport.h"

#include <fcntl.h>
#include <limits.h>  // PIPE_BUF
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "clients/acp/json_rpc.h"
#include "common/line_framer.h"
#include "common/logging.h"

namespace raw::acp {

StdioTransport::StdioTransport(int in_fd, int out_fd, size_t max_message_bytes,
                               OutputLimits output_limits)
    : in_fd_(in_fd),
      out_fd_(out_fd),
      max_message_bytes_(max_message_bytes),
      input_(InputBudget::Create(InputBudgetLimit(max_message_bytes))),
      stall_(std::move(output_limits), max_message_bytes) {
  if (pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
  struct stat st {};
  out_is_pipe_ = fstat(out_fd_, &st) == 0 && S_ISFIFO(st.st_mode);
}

StdioTransport::~StdioTransport() {
  Close();
  Join();
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

void StdioTransport::Start(std::unique_ptr<Peer> peer) {
  peer_ = std::move(peer);
  reader_ = std::thread([this] { ReadLoop(); });
  writer_ = std::thread([this] { WriteLoop(); });
}

bool StdioTransport::Send(std::string message) {
  message.push_back('\n');
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return false;
    if (!out_is_pipe_ || writing_ || !queue_.empty() || message.size() > PIPE_BUF) {
      return Enqueue(std::move(message));
    }
    writing_ = true;  // keeps the writer thread off `out` meanwhile
  }
  const size_t written = WriteNow(message);
  absl::MutexLock lock(&mu_);
  writing_ = false;
  // Bytes written are progress; and output that begins to wait here, with
  // nothing queued, starts the stall window (as in Enqueue).
  if (written > 0 || (queue_.empty() && batch_unwritten_ == 0)) stall_.Progress();
  // What is left goes ahead of anything queued meanwhile, which was sent
  // after it (at most PIPE_BUF bytes: not held against the limit).
  if (written < message.size() && !overflowed_) {
    queue_.push_front(message.substr(written));
    queued_bytes_ += queue_.front().size();
  }
  return true;
}

bool StdioTransport::Enqueue(std::string message) {
  // Output that begins to wait after none did starts the stall window:
  // the writer cannot have made progress on what was not there.
  if (queue_.empty() && batch_unwritten_ == 0) stall_.Progress();
  const OutputStallRule::Verdict verdict =
      stall_.Check(queued_bytes_ + batch_unwritten_ + message.size());
  if (verdict == OutputStallRule::Verdict::kKeep) {
    queued_bytes_ += message.size();
    queue_.push_back(std::move(message));
    return true;
  }
  RAW_LOG(Error) << stall_.Describe(verdict);
  overflowed_ = true;
  closed_ = true;
  queue_.clear();
  queued_bytes_ = 0;
  input_->Close();
  Wake();
  return false;
}

bool StdioTransport::overflowed() const {
  absl::MutexLock lock(&mu_);
  return overflowed_;
}

void StdioTransport::Wake() {
  if (wake_[1] >= 0) {
    char byte = 1;
    (void)!write(wake_[1], &byte, 1);
  }
}

size_t StdioTransport::WriteNow(const std::string& message) {
  // A pipe that polls writable has a free page, and takes a write of at
  // most PIPE_BUF bytes whole, at once.
  pollfd fd = {out_fd_, POLLOUT, 0};
  if (poll(&fd, 1, 0) != 1 || (fd.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0 ||
      (fd.revents & POLLOUT) == 0) {
    return 0;
  }
  for (;;) {
    ssize_t n = write(out_fd_, message.data(), message.size());
    if (n < 0 && errno == EINTR) continue;
    return n < 0 ? 0 : static_cast<size_t>(n);
  }
}

void StdioTransport::Close() {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
  }
  input_->Close();  // a reader waiting for the budget stops
  Wake();
}

void StdioTransport::Join() {
  if (reader_.joinable() && reader_.get_id() != std::this_thread::get_id()) reader_.join();
  if (writer_.joinable() && writer_.get_id() != std::this_thread::get_id()) writer_.join();
}

bool StdioTransport::JoinWithin(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return writer_done_; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&done), timeout)) return false;
  }
  Join();
  return true;
}

void StdioTransport::FinishPeer() {
  {
    absl::MutexLock lock(&mu_);
    if (peer_done_) return;
    peer_done_ = true;
  }
  absl::MutexLock lock(&peer_mu_);
  if (peer_) peer_->OnClosed();
}

void StdioTransport::ReadLoop() {
  LineFramer framer(max_message_bytes_);
  auto deliver = [this](std::string line) {
    // Waits while too much of what was handed on is still unhandled; not
    // holding peer_mu_, which OnClosed needs.
    InputClaim claim = input_->Acquire(line.size());
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return false;
    }
    absl::MutexLock lock(&peer_mu_);
    peer_->OnMessageWithClaim(std::move(line), std::move(claim));
    return true;
  };
  auto refuse = [this](size_t bytes) {
    Send(ErrorResponse(nullptr,
                       {rpc_code::kInvalidRequest,
                        absl::StrCat("message of ", bytes, " bytes or more is over the limit of ",
                                     max_message_bytes_, " bytes (--max-message-bytes); dropped"),
                        nullptr}));
    return true;
  };
  char buf[65536];
  for (;;) {
    pollfd fds[2] = {{in_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int n = poll(fds, wake_[0] >= 0 ? 2 : 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & POLLIN) != 0) break;
    ssize_t got = read(in_fd_, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;  // end of input
    if (!framer.Feed(std::string_view(buf, static_cast<size_t>(got)), deliver, refuse)) break;
  }
  Close();
  FinishPeer();
}

bool StdioTransport::WaitWritable() {
  for (;;) {
    pollfd fd = {out_fd_, POLLOUT, 0};
    int n = poll(&fd, 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    // POLLERR or POLLHUP: the next write says what happened.
    return (fd.revents & POLLNVAL) == 0;
  }
}

// Writes `batch` whole, in order, with as few writev calls as it takes.
// False when the reader went away.
bool StdioTransport::WriteBatch(std::deque<std::string>& batch) {
  size_t first = 0;   // the message the next write starts in
  size_t offset = 0;  // bytes of it already written
  while (first < batch.size()) {
    std::array<iovec, kMaxIov> iov;
    size_t count = 0;
    size_t bytes = 0;
    for (size_t i = first; i < batch.size() && count < iov.size() && bytes < kMaxWriteBytes;
         ++i, ++count) {
      const size_t skip = i == first ? offset : 0;
      const size_t len = std::min(batch[i].size() - skip, kMaxWriteBytes - bytes);
      iov[count] = {batch[i].data() + skip, len};
      bytes += len;
    }
    ssize_t n = writev(out_fd_, iov.data(), static_cast<int>(count));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // A non-blocking `out` that is full: the client has not gone away.
      if (!WaitWritable()) return false;
      continue;
    }
    if (n <= 0) return false;
    size_t written = static_cast<size_t>(n);
    {
      absl::MutexLock lock(&mu_);
      batch_unwritten_ -= std::min(batch_unwritten_, written);
      stall_.Progress();
    }
    while (written > 0) {
      const size_t left = batch[first].size() - offset;
      if (written < left) {
        offset += written;
        break;
      }
      written -= left;
      ++first;
      offset = 0;
    }
  }
  return true;
}

void StdioTransport::WriteLoop() {
  for (;;) {
    // Everything queued goes out together: during a burst of updates that
    // is one system call for many messages instead of one for each.
    std::deque<std::string> batch;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !writing_ && (closed_ || !queue_.empty());
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) break;  // closed, and everything written
      batch.swap(queue_);
      batch_unwritten_ = queued_bytes_;
      queued_bytes_ = 0;
      writing_ = true;  // a Send must not write between these messages
    }
    const bool written = WriteBatch(batch);
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      batch_unwritten_ = 0;
    }
    if (!written) {
      Close();
      break;
    }
  }
  {
    absl::MutexLock lock(&mu_);
    writer_done_ = true;
  }
  FinishPeer();
}

}  // namespace raw::acp
