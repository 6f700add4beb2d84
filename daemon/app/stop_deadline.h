// StopDeadline: the hard bound on rawd's orderly stop. Each step of the stop
// bounds itself (a cancelled turn's command gets a grace before SIGKILL, an
// MCP server its stop graces, the gRPC server 500 ms); this ends the process
// when the whole stop has nevertheless not finished within the deadline (a
// step whose cancellation is not answered: a disk that hangs, a tool that
// ignores its cancel token), so that a stop asked for by a signal, by
// `raw daemon stop` or by systemd always completes. rawd's `expire` ends
// the process groups it started (child_ledger::EndLiveGroups) before it
// exits; a stop cut short leaves the child ledger not marked clean, so the
// next start ends whatever survived, as after a crash.
//
// Thread-safety: Step may be called from any thread.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::app {

class StopDeadline {
 public:
  // Watches from now on: after `deadline` without the object being
  // destroyed, logs an error naming the step last begun and the deadline,
  // then calls `expire` (rawd's exits the process) on the watching thread.
  // When no thread can be started to watch, logs a warning and watches
  // nothing.
  StopDeadline(absl::Duration deadline, std::function<void()> expire);
  // Ends the watch (the stop finished in time); `expire` is not called.
  ~StopDeadline();
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;

  // Names the step the stop begins now, for the log line.
  void Step(std::string name);

 private:
  void Watch(absl::Duration deadline, const std::function<void()>& expire);

  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::string step_ ABSL_GUARDED_BY(mu_) = "beginning to stop";
  std::thread watcher_;
};

}  // namespace raw::app
