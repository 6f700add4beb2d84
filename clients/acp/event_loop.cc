#include "clients/acp/event_loop.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "common/logging.h"

namespace raw::acp {

void EventLoop::Post(Task task) {
  absl::MutexLock lock(&mu_);
  if (quit_) return;
  tasks_.push_back(std::move(task));
}

void EventLoop::RunOrPost(Task task) {
  {
    absl::MutexLock lock(&mu_);
    if (quit_) return;
    if (!idle_ || lent_ || !tasks_.empty()) {
      tasks_.push_back(std::move(task));
      return;
    }
    lent_ = true;
  }
  // The tasks this one posts (a deferred flush of the chunk it wrote) and
  // any posted meanwhile run here too, in order, before the loop is given
  // back: handing them to the loop's thread would cost the wake-up this
  // spares.
  for (;;) {
    RunTask(task);
    Tick();
    absl::MutexLock lock(&mu_);
    if (quit_ || tasks_.empty()) break;
    task = std::move(tasks_.front());
    tasks_.pop_front();
  }
  const std::optional<absl::Time> next = NextDeadline();
  absl::MutexLock lock(&mu_);
  lent_ = false;
  if (next && (!idle_deadline_ || *next < *idle_deadline_)) deadline_moved_ = true;
}

void EventLoop::Quit() {
  absl::MutexLock lock(&mu_);
  quit_ = true;
}

void EventLoop::AddTicker(Ticker* ticker) { tickers_.push_back(ticker); }

void EventLoop::RemoveTicker(Ticker* ticker) {
  tickers_.erase(std::remove(tickers_.begin(), tickers_.end(), ticker), tickers_.end());
}

std::optional<absl::Time> EventLoop::NextDeadline() const {
  std::optional<absl::Time> next;
  for (const Ticker* ticker : tickers_) {
    std::optional<absl::Time> t = ticker->NextDeadline();
    if (t && (!next || *t < *next)) next = t;
  }
  return next;
}

void EventLoop::RunTask(const Task& task) {
  // Raw's code does not throw, but the JSON library does on a value of an
  // unexpected type: such a slip fails one task, not the whole bridge (in
  // --listen mode, every client's connection).
  try {
    task();
  } catch (const std::exception& e) {
    RAW_LOG(Error) << "raw-acp: a task failed: " << e.what();
  }
}

void EventLoop::Tick() {
  // Ticking is cheap and some rules (the handover gate) change with the
  // events themselves, not only at deadlines: every ticker ticks after
  // every task. A ticker may remove itself (or another) while ticking.
  absl::Time now = absl::Now();
  std::vector<Ticker*> tickers = tickers_;
  for (Ticker* ticker : tickers) {
    if (std::find(tickers_.begin(), tickers_.end(), ticker) != tickers_.end()) ticker->Tick(now);
  }
}

void EventLoop::Run() {
  for (;;) {
    // Nothing runs elsewhere now (the loop is not idle): the tickers are
    // this thread's to read.
    std::optional<absl::Time> deadline = NextDeadline();
    Task task;
    {
      absl::MutexLock lock(&mu_);
      idle_ = tasks_.empty();
      idle_deadline_ = deadline;
      deadline_moved_ = false;
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !lent_ && (quit_ || !tasks_.empty() || deadline_moved_);
      };
      if (deadline) {
        mu_.AwaitWithDeadline(absl::Condition(&ready), *deadline);
      } else {
        mu_.Await(absl::Condition(&ready));
      }
      // At the deadline a task may still run elsewhere: the loop is this
      // thread's again only once that task is done.
      auto returned = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !lent_; };
      mu_.Await(absl::Condition(&returned));
      idle_ = false;
      if (quit_) return;
      if (!tasks_.empty()) {
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
    }
    if (task) RunTask(task);
    Tick();
  }
}

}  // namespace raw::acp
