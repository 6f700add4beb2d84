// EventLoop: the owner thread of the ACP bridge. Transports (their reader
// threads) and the session controllers (their workers and streams) post
// tasks here; every ACP connection, session bridge and controller method
// runs on this one thread, in the order the tasks were posted.
//
// Timers: tickers (the session controllers' reconnection and handover
// timers) tick after every task and at the deadlines they name. Run()
// returns after Quit().
//
// A task that throws (a JSON type error that slipped through) is logged
// and the loop goes on.
//
// Thread-safe: Post and Quit from any thread; Run, AddTicker and
// RemoveTicker on the loop's thread (AddTicker also before Run).
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

  absl::Mutex mu_;
  std::deque<Task> tasks_ ABSL_GUARDED_BY(mu_);
  bool quit_ ABSL_GUARDED_BY(mu_) = false;
  // Loop thread only.
  std::vector<Ticker*> tickers_;
};

}  // namespace raw::acp
