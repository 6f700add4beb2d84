// StdioTransport: ACP over a pair of file descriptors (raw-acp's stdin and
// stdout), one JSON-RPC message per line.
//
// Reading: a thread reads `in`, splits it at '\n', drops a trailing '\r'
// and skips blank lines, and hands each line to the peer. A line longer
// than max_message_bytes is not kept: the rest of it is skipped and the
// transport itself answers with one -32600 error (id null) naming the
// limit. End of input closes the transport (the peer's OnClosed).
//
// Writing: messages go out in order, each as one whole line (nothing else
// ever writes to `out`). When `out` is a pipe, nothing is queued or being
// written, and the pipe has room for the message (at most PIPE_BUF bytes,
// which a pipe takes whole or not at all), Send writes it itself before it
// returns: no other thread has to wake up for it. Otherwise the message is
// queued for a writer thread, which writes whatever is queued when it comes
// for more in one writev, so a burst costs few system calls, and nothing
// waits in user space for more to come. A failed write (the reader went
// away) closes the transport. So does more than `max_queued_bytes` of
// output waiting in the queue (the reader stopped reading): the queue is
// dropped, overflowed() turns true, and the error is logged. The writer
// thread may then stay blocked in a write the reader never takes, so the
// owner does not Join() it but ends the process.
//
// Close() stops delivering input at once, writes what was queued before
// it, then ends; the peer's OnClosed follows once. Join() waits for both
// threads (after Close or end of input). JoinWithin() waits at most a
// given time for the writer: a reader that stopped reading leaves it
// blocked in a write for good, and the owner then ends the process
// without joining (the unwritten output is lost).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/acp/transport.h"

namespace raw::acp {

class StdioTransport : public Transport, public std::enable_shared_from_this<StdioTransport> {
 public:
  // `max_queued_bytes` 0: OutputQueueLimit(max_message_bytes).
  StdioTransport(int in_fd, int out_fd, size_t max_message_bytes = kDefaultMaxMessageBytes,
                 size_t max_queued_bytes = 0);
  ~StdioTransport() override;

  // Starts the threads; the transport keeps `peer` until after OnClosed.
  void Start(std::unique_ptr<Peer> peer);
  bool Send(std::string message) override;
  void Close() override;
  void Join();
  // Join, unless the writer has not finished writing within `timeout`
  // (after Close or end of input): false, and nothing is joined.
  bool JoinWithin(absl::Duration timeout);
  // The transport closed because the reader left too much output unread.
  bool overflowed() const;

 private:
  void ReadLoop();
  void WriteLoop();
  bool WriteBatch(std::deque<std::string>& batch);
  // Writes `message` now if the pipe takes it whole without waiting; the
  // bytes written (all of them or none, as a pipe takes such a write).
  size_t WriteNow(const std::string& message);
  static constexpr size_t kMaxIov = 64;
  // Calls OnClosed once (from whichever thread gets there first).
  void FinishPeer();
  // Queues `message` for the writer thread; false (the transport closes)
  // when that makes the queue longer than max_queued_bytes_.
  bool Enqueue(std::string message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes the reader's poll return.
  void Wake();

  int in_fd_;
  int out_fd_;
  bool out_is_pipe_ = false;
  size_t max_message_bytes_;
  size_t max_queued_bytes_;
  int wake_[2] = {-1, -1};  // a pipe: makes the reader's poll return on Close
  std::unique_ptr<Peer> peer_;
  std::thread reader_;
  std::thread writer_;

  mutable absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // in queue_
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
  // A Send or the writer thread is writing to `out`: nobody else may.
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool peer_done_ ABSL_GUARDED_BY(mu_) = false;
  bool writer_done_ ABSL_GUARDED_BY(mu_) = false;  // WriteLoop returned
  // Serializes peer calls (OnMessage on the reader, OnClosed anywhere).
  absl::Mutex peer_mu_;
};

}  // namespace raw::acp
