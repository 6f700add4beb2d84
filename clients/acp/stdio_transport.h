// StdioTransport: ACP over a pair of file descriptors (raw-acp's stdin and
// stdout), one JSON-RPC message per line.
//
// Reading: a thread reads `in`, splits it at '\n', drops a trailing '\r'
// and skips blank lines, and hands each line to the peer. A line longer
// than max_message_bytes is not kept: the rest of it is skipped and the
// transport itself answers with one -32600 error (id null) naming the
// limit. End of input closes the transport (the peer's OnClosed). Each
// line is handed on with its claim on the input budget (input_budget.h,
// InputBudgetLimit): while the lines handed on but not yet handled would
// pass it, the reader stops reading, so a client that writes faster than
// raw-acp handles its messages is held back by the pipe.
//
// Writing: messages go out in order, each as one whole line (nothing else
// ever writes to `out`). When `out` is a pipe, nothing is queued or being
// written, and the pipe has room for the message (at most PIPE_BUF bytes,
// which a pipe takes whole or not at all), Send writes it itself before it
// returns: no other thread has to wake up for it. Otherwise the message is
// queued for a writer thread, which writes whatever is queued when it comes
// for more in one writev, so a burst costs few system calls, and nothing
// waits in user space for more to come. A non-blocking `out` (a parent may
// hand one over) is waited on with poll when it is full. A failed write
// (the reader went away) closes the transport. So does output the reader
// leaves unread by OutputStallRule (output_stall.h: over the soft limit
// with nothing written for the stall window, or over the hard limit): the
// queue is dropped, overflowed() turns true, and the error is logged. The
// writer thread may then stay blocked in a write the reader never takes,
// so the owner does not Join() it but ends the process.
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
  // Zero `output_limits` take the defaults for max_message_bytes.
  StdioTransport(int in_fd, int out_fd, size_t max_message_bytes = kDefaultMaxMessageBytes,
                 OutputLimits output_limits = {});
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
  // The input handed to the peer and not yet handled (tests).
  const InputBudget& input_budget() const { return *input_; }

 private:
  void ReadLoop();
  void WriteLoop();
  bool WriteBatch(std::deque<std::string>& batch);
  // Waits until `out` takes more (a non-blocking `out` that is full); false
  // when it never will.
  bool WaitWritable();
  // Writes `message` now if the pipe takes it whole without waiting; the
  // bytes written (all of them or none, as a pipe takes such a write).
  size_t WriteNow(const std::string& message);
  static constexpr size_t kMaxIov = 64;
  // The most one writev is given: a blocking pipe returns only once it
  // took all of it, and the stall rule sees the writer's progress only
  // between writes, so a write must not take a slow reader longer than the
  // stall window (64 KiB, a pipe's default size: one write per pipeful).
  static constexpr size_t kMaxWriteBytes = 64 * 1024;
  // Calls OnClosed once (from whichever thread gets there first).
  void FinishPeer();
  // Queues `message` for the writer thread; false (the transport closes)
  // when OutputStallRule says the reader stopped reading.
  bool Enqueue(std::string message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes the reader's poll return.
  void Wake();

  int in_fd_;
  int out_fd_;
  bool out_is_pipe_ = false;
  size_t max_message_bytes_;
  const std::shared_ptr<InputBudget> input_;
  int wake_[2] = {-1, -1};  // a pipe: makes the reader's poll return on Close
  std::unique_ptr<Peer> peer_;
  std::thread reader_;
  std::thread writer_;

  mutable absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // in queue_
  // Of the batch the writer thread has taken, the bytes not yet written.
  size_t batch_unwritten_ ABSL_GUARDED_BY(mu_) = 0;
  OutputStallRule stall_ ABSL_GUARDED_BY(mu_);
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
