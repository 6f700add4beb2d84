// StartThread: starts a thread, or says why none could be started.
//
// std::thread's constructor throws std::system_error when the system gives
// no thread (RLIMIT_NPROC, the kernel's threads-max, no memory for a
// stack). Thrown on a WorkerPool task or any other thread of the daemon,
// nothing catches it and std::terminate ends the daemon with every
// session's turn. Code that starts threads while the daemon runs starts
// them here instead, and decides what a refusal means for its operation:
// it fails with the status returned, or does the work on the calling
// thread where that is safe. Whatever it counted or marked for the thread
// before the start it undoes on a refusal: no thread runs to undo it.
//
// Tests make starts fail on purpose with RefuseThreadStartsForTesting.
//
// Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw {

namespace thread_start_internal {
// Throws std::system_error(EAGAIN), as pthread_create's refusal does, when a
// RefuseThreadStartsForTesting matches `what`.
void MaybeRefuse(std::string_view what);
// ResourceExhausted "could not start a thread for <what>: <error>".
absl::Status Refused(std::string_view what, const std::system_error& error);
}  // namespace thread_start_internal

// Starts a thread running `body`. On a refusal returns ResourceExhausted
// "could not start a thread for <what>: <reason>" (`what` names the work,
// e.g. "the reader of MCP server \"github\""); `body` has not run and never
// will.
template <typename Body>
absl::StatusOr<std::thread> StartThread(std::string_view what, Body&& body) {
  try {
    thread_start_internal::MaybeRefuse(what);
    return std::thread(std::forward<Body>(body));
  } catch (const std::system_error& e) {
    return thread_start_internal::Refused(what, e);
  }
}

// StartThread, then detaches the thread: `body` must hold (own or share)
// everything it uses, and whoever waits for it counts it itself.
template <typename Body>
absl::Status StartDetachedThread(std::string_view what, Body&& body) {
  absl::StatusOr<std::thread> thread = StartThread(what, std::forward<Body>(body));
  if (!thread.ok()) return thread.status();
  thread->detach();
  return absl::OkStatus();
}

// For tests: while one lives, every start whose `what` contains `match`
// (every start, for an empty `match`) is refused as when the system has no
// thread to give, after the first `allowed` of them succeeded. One at a
// time per process.
class RefuseThreadStartsForTesting {
 public:
  explicit RefuseThreadStartsForTesting(std::string match, int allowed = 0);
  ~RefuseThreadStartsForTesting();
  RefuseThreadStartsForTesting(const RefuseThreadStartsForTesting&) = delete;
  RefuseThreadStartsForTesting& operator=(const RefuseThreadStartsForTesting&) = delete;

  // The starts refused so far.
  int refused() const;
};

}  // namespace raw
