// RunnerHarness: drives SessionRunners from tests. It owns what a runner
// needs from the daemon (a worker pool, a lease table in which it holds each
// session's lease, a planner that hands out the plans the test queued) and
// turns each asynchronous write into a call that returns its reply.
#pragma once

#include <deque>
#include <map>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/loop/session_runner.h"
#include "gtest/gtest.h"

namespace raw::loop::testing {

// Calls `start` with a reply callback and returns what it replied (an error
// when no reply came within 30 s, which only bounds a failing test).
template <typename T, typename Start>
absl::StatusOr<T> Await(const Start& start) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> future = promise->get_future();
  start([promise](absl::StatusOr<T> result) { promise->set_value(std::move(result)); });
  if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "no reply within 30 s";
    return absl::DeadlineExceededError("no reply");
  }
  return future.get();
}

class RunnerHarness {
 public:
  RunnerHarness(store::SessionStore& store, const Clock& clock) : store_(store), clock_(clock) {}
  ~RunnerHarness() { ShutdownAll(); }

  // A runner for `record` whose lease this harness holds (acquired through
  // the runner, as the daemon does).
  std::shared_ptr<SessionRunner> Make(const store::SessionRecord& record) {
    SessionRunnerDeps deps{store_,
                           clock_,
                           pool_,
                           leases_,
                           [this](PlanPurpose purpose, const std::string&) {
                             // A warm-up gets no queued plan: it is not one
                             // of the writes below.
                             if (purpose == PlanPurpose::kWarmup) return WarmupPlan();
                             return NextPlan();
                           },
                           nullptr};
    deps.warm_history_items = warm_history_items_;
    auto runner = SessionRunner::Create(record, std::move(deps));
    // As the daemon does; a warm-up waits for it (the first write does it
    // otherwise).
    if (warmup_planner_) {
      EXPECT_TRUE(runner->RecoverUnfinishedTurn().ok());
    }
    runners_.push_back(runner);
    if (lease_by_session_.count(record.id) == 0) {
      auto acquired = Acquire(*runner, WhenHeld::kRefuse);
      EXPECT_TRUE(acquired.ok()) << acquired.status();
      if (acquired.ok()) lease_by_session_[record.id] = acquired->lease_id;
    }
    return runner;
  }

  // Runs the runner's acquire command for a client named "test" and returns
  // its answer.
  absl::StatusOr<WriteLeases::Acquired> Acquire(SessionRunner& runner, WhenHeld when_held,
                                                LeaseCallbacks callbacks = {}) {
    return Await<WriteLeases::Acquired>([&](Reply<WriteLeases::Acquired> reply) {
      runner.AcquireLease(LeaseClient{"test", "test", 0}, when_held, std::move(callbacks),
                          [reply](absl::StatusOr<WriteLeases::Acquired> acquired) {
                            reply(std::move(acquired));
                            return true;
                          });
    });
  }

  // Runs in the planner before it hands out a plan (on the pool thread
  // that prepares the operation), e.g. to hold preparation up as a slow MCP
  // server or variable command would.
  void SetBeforePlan(std::function<void()> hook) {
    std::lock_guard<std::mutex> lock(mu_);
    before_plan_ = std::move(hook);
  }

  // Runners made from now on are recovered at once (as the daemon does) and
  // warm up (session_runner.h) from `items` items, with plans from
  // `planner` (on the pool thread of the warm-up); without a planner a
  // warm-up gets an error and leaves nothing behind.
  void EnableWarmUp(size_t items, std::function<absl::StatusOr<TurnPlan>()> planner) {
    std::lock_guard<std::mutex> lock(mu_);
    warm_history_items_ = items;
    warmup_planner_ = std::move(planner);
  }

  // The plan the runner's next StartTurn, StartCompaction or Clear gets.
  void QueuePlan(TurnPlan plan) {
    std::lock_guard<std::mutex> lock(mu_);
    plans_.push_back(std::move(plan));
  }

  // Each write below hands the runner `plan` (if it asks for one) and
  // returns its reply; a plan it did not ask for is dropped.
  absl::Status StartTurn(SessionRunner& runner, TurnPlan plan) {
    QueuePlan(std::move(plan));
    absl::Status s = Await<std::string>([&](Reply<std::string> reply) {
                       runner.StartTurn("text", lease(runner), std::move(reply));
                     }).status();
    DropPlans();
    return s;
  }
  absl::Status StartCompaction(SessionRunner& runner, TurnPlan plan) {
    QueuePlan(std::move(plan));
    absl::Status s = Await<std::string>([&](Reply<std::string> reply) {
                       runner.StartCompaction(lease(runner), std::move(reply));
                     }).status();
    DropPlans();
    return s;
  }
  absl::StatusOr<events::ContextEstimate> Clear(SessionRunner& runner, TurnPlan plan) {
    QueuePlan(std::move(plan));
    auto r = Await<events::ContextEstimate>([&](Reply<events::ContextEstimate> reply) {
      runner.Clear(lease(runner), std::move(reply));
    });
    DropPlans();
    return r;
  }
  bool Interrupt(SessionRunner& runner) {
    absl::StatusOr<bool> r = Await<bool>(
        [&](Reply<bool> reply) { runner.Interrupt(lease(runner), std::move(reply)); });
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() && *r;
  }
  absl::Status RespondToApproval(SessionRunner& runner, const std::string& request_id,
                                 const std::vector<events::ApprovalAnswer>& answers,
                                 const std::optional<events::ApprovalAnswer>& all) {
    return Await<bool>([&](Reply<bool> reply) {
             runner.RespondToApproval(lease(runner), request_id, answers, all,
                                      [reply](absl::Status s) {
                                        if (s.ok()) return reply(true);
                                        reply(s);
                                      });
           })
        .status();
  }

  // Ends every runner's operation, then the pool.
  void ShutdownAll() {
    for (const auto& r : runners_) r->Shutdown();
    runners_.clear();
    pool_.Shutdown();
  }

  WriteLeases& leases() { return leases_; }
  WorkerPool& pool() { return pool_; }
  std::string lease(const SessionRunner& runner) const {
    auto it = lease_by_session_.find(runner.session_id());
    return it == lease_by_session_.end() ? "" : it->second;
  }

 private:
  void DropPlans() {
    std::lock_guard<std::mutex> lock(mu_);
    plans_.clear();
  }
  absl::StatusOr<TurnPlan> WarmupPlan() {
    std::function<absl::StatusOr<TurnPlan>()> planner;
    {
      std::lock_guard<std::mutex> lock(mu_);
      planner = warmup_planner_;
    }
    if (!planner) return absl::FailedPreconditionError("no warm-up in this test");
    return planner();
  }
  absl::StatusOr<TurnPlan> NextPlan() {
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      hook = before_plan_;
    }
    if (hook) hook();
    std::lock_guard<std::mutex> lock(mu_);
    if (plans_.empty()) return absl::InternalError("the test queued no plan");
    TurnPlan plan = std::move(plans_.front());
    plans_.pop_front();
    return plan;
  }

  store::SessionStore& store_;
  const Clock& clock_;
  WriteLeases leases_{clock_};
  std::map<std::string, std::string> lease_by_session_;
  std::mutex mu_;
  std::deque<TurnPlan> plans_;
  std::function<void()> before_plan_;
  // Default: SessionRunnerDeps' own.
  size_t warm_history_items_ = kDefaultWarmHistoryItems;
  std::function<absl::StatusOr<TurnPlan>()> warmup_planner_;
  std::vector<std::shared_ptr<SessionRunner>> runners_;
  WorkerPool pool_;  // last: destroyed (joined) first
};

}  // namespace raw::loop::testing
