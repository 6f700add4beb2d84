// EventLoop: the owner thread of the ACP bridge. Transports (their reader
// threads) and the session controllers (their workers and streams) post
// tasks here; every ACP connection, session bridge and controller method
// runs on this one thread, in the order the tasks were posted.
//
// Timers: tickers (the session controllers' reconnection and handover
// timers) tick after every task and at the deadlines they name. Run()
// returns after Quit().
//
// RunOrPost lends the loop to the calling thread: when the loop waits with
// nothing queued, the task runs at once on the caller's thread (and the
// tickers tick after it there), which spares a streamed event the wake-up
// of the loop's thread. Tasks still run one at a time, in the order they
// came, whatever thread runs them: the loop's thread takes no task while
// one runs elsewhere, and nothing runs elsewhere while it is busy or tasks
// are queued.
//
// A task that throws (a JSON type error that slipped through) is logged
// and the loop goes on.
//
// Thread-safe: Post, RunOrPost and Quit from any thread; Run on one thread;
// AddTicker and RemoveTicker from tasks (AddTicker also before Run).
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace raw::acp {

class Ticker {
 public:
  virtual ~Ticker() = default;
  virtual void Tick(absl::Time now) = 0;
  // When Tick next has something to do; nullopt: nothing is due.
  virtual std::optional<absl::Time> NextDeadline() const = 0;
};

class EventLoop {
 public:
  using Task = std::function<void()>;

  // Queues `task` (dropped once the loop has quit).
  void Post(Task task);
  // Runs `task` now on the calling thread when the loop is idle (waiting,
  // nothing queued, no task running elsewhere); otherwise as Post. Returns
  // after the task when it ran here. The caller must hold no lock that a
  // task may take.
  void RunOrPost(Task task);
  // Makes Run return once the task running now finishes.
  void Quit();
  // Runs tasks and ticks until Quit().
  void Run();

  void AddTicker(Ticker* ticker);
  void RemoveTicker(Ticker* ticker);

 private:
  std::optional<absl::Time> NextDeadline() const;
  // Runs `task`; an exception it throws is logged, never passed on.
  static void RunTask(const Task& task);
  // Ticks every ticker (after each task).
  void Tick();

  absl::Mutex mu_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool quit_ ABSL_GUARDED_BY(mu_) = false;
  // The loop's thread waits for work with nothing queued: RunOrPost may
  // lend the loop out.
  bool idle_ ABSL_GUARDED_BY(mu_) = false;
  // A task runs on another thread (RunOrPost); the loop's thread waits.
  bool lent_ ABSL_GUARDED_BY(mu_) = false;
  // The deadline the idle loop waits for, and whether a task run elsewhere
  // brought a ticker's deadline before it (the loop then computes it again).
  std::optional<absl::Time> idle_deadline_ ABSL_GUARDED_BY(mu_);
  bool deadline_moved_ ABSL_GUARDED_BY(mu_) = false;
  // Touched only by whoever runs tasks (one at a time).
  std::vector<Ticker*> tickers_;
};

}  // namespace raw::acp
