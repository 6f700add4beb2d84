// The lifetime of loaded sessions: unloading idle ones, forgetting removed
// ones, and the daemon's shutdown.
#include <malloc.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/logging.h"
#include "daemon/loop/session_manager.h"
#include "daemon/loop/session_runner.h"

namespace raw::loop {

void SessionManager::ForgetRemovedSession(const std::string& session_id, const std::string& why,
                                          bool on_queue) {
  std::shared_ptr<SessionRunner> unloaded;
  {
    absl::MutexLock lock(&mu_);
    ++removals_;
    if (auto it = runners_.find(session_id); it != runners_.end()) {
      unloaded = std::move(it->second.runner);
      runners_.erase(it);
    }
  }
  // A caller that found the runner before it left the table may still post
  // to it (an AcquireLease queued behind the delete that runs this, or one
  // running beside an expiry): from here on its lease commands and writes
  // are refused with NOT_FOUND, and a lease granted before the mark is
  // ended below.
  if (unloaded != nullptr) unloaded->MarkRemoved(absl::NotFoundError(why));
  // Off the queue: the runner's running operation (a step that waited that
  // long for an approval or a tool) is cancelled and ends.
  if (unloaded != nullptr && !on_queue) unloaded->Shutdown();
  // Its followers learn at once that the session is gone (NOT_FOUND),
  // rather than waiting on a stream that will never carry another event.
  if (unloaded != nullptr) unloaded->EndSubscriptions(absl::NotFoundError(why));
  if (deps_.mcp != nullptr) deps_.mcp->DropSessionServers(session_id);
  leases_.EndSession(session_id, absl::NotFoundError(why));
}

absl::StatusOr<size_t> SessionManager::PurgeExpired() {
  // A session the store cannot remove (a damaged page in its rows) is
  // reported and tried again next time; it stops neither the other
  // removals nor expiry, so each step goes on past a failure and the
  // failures come back together at the end.
  std::vector<absl::Status> failures;
  size_t gone = 0;
  // Whether or not sessions expire: a removal cut short (a crash between two
  // batches, a failed batch) leaves hidden rows that only this finishes.
  absl::StatusOr<store::RemovalReport> finished = deps_.store.FinishRemovals();
  if (finished.ok()) {
    for (const auto& id : finished->removed) {
      ForgetRemovedSession(id, absl::StrCat("session ", id, " was deleted; its write lease ended"),
                           /*on_queue=*/false);
      RAW_LOG(Info) << "finished removing session " << id << ", which was cut short";
    }
    gone += finished->removed.size();
    if (!finished->status.ok()) failures.push_back(finished->status);
  } else {
    failures.push_back(finished.status());
  }
  absl::StatusOr<config::Config> cfg = LoadConfig();
  const int64_t days = cfg.ok() ? cfg->sessions.expire_after_days : 0;
  if (!cfg.ok()) failures.push_back(cfg.status());
  if (days > 0) {
    const int64_t cutoff = deps_.clock.NowUnixMs() - days * 24 * 60 * 60 * 1000;
    absl::StatusOr<store::RemovalReport> expired = deps_.store.PurgeExpired(cutoff);
    if (expired.ok()) {
      // A session left unfinished is hidden all the same: it goes from
      // memory now, and its rows at a later purge.
      for (const auto* ids : {&expired->removed, &expired->unfinished}) {
        for (const auto& id : *ids) {
          // As DeleteSession: a client holding the session open (reading
          // and watching do not renew it) is told, and the runner with its
          // MCP servers goes.
          ForgetRemovedSession(id,
                               absl::StrCat("session ", id, " expired after ", days,
                                            " days without conversation activity and was "
                                            "removed; its write lease ended"),
                               /*on_queue=*/false);
          if (ids == &expired->removed) {
            RAW_LOG(Info) << "session " << id << " expired after " << days
                          << " days without conversation activity; removed";
          }
        }
      }
      gone += expired->removed.size();
      if (!expired->status.ok()) failures.push_back(expired->status);
    } else {
      failures.push_back(expired.status());
    }
  }
  if (failures.empty()) return gone;
  std::vector<std::string> messages;
  for (const absl::Status& failure : failures) messages.emplace_back(failure.message());
  return absl::Status(
      failures.front().code(),
      absl::StrCat(absl::StrJoin(messages, "; "), " (", gone, " session(s) removed meanwhile)"));
}

size_t SessionManager::loaded_sessions() {
  absl::MutexLock lock(&mu_);
  return runners_.size();
}

size_t SessionManager::UnloadIdle(absl::Duration idle) {
  const int64_t cutoff = deps_.clock.NowUnixMs() - absl::ToInt64Milliseconds(idle);
  std::vector<std::shared_ptr<SessionRunner>> unloaded;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = runners_.begin(); it != runners_.end();) {
      Loaded& loaded = it->second;
      // use_count 1: nobody but this table holds the runner, and nobody can
      // take it while mu_ is held. A lease changes only by a command on the
      // runner's queue, which Idle() counts until it has run, so the lease
      // check cannot miss one that is on its way.
      if (loaded.last_used_unix_ms <= cutoff && loaded.runner.use_count() == 1 &&
          loaded.runner->Idle() && !leases_.InUse(it->first)) {
        unloaded.push_back(std::move(loaded.runner));
        it = runners_.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (unloaded.empty()) return 0;
  const size_t count = unloaded.size();
  if (deps_.mcp != nullptr) {
    for (const auto& runner : unloaded) deps_.mcp->DropSessionServers(runner->session_id());
  }
  unloaded.clear();  // outside the lock: destroying a context may take a while
  // Give the freed contexts back to the system, not only to malloc.
  malloc_trim(0);
  RAW_LOG(Info) << "unloaded " << count << " idle session(s) from memory";
  return count;
}

void SessionManager::SweepLoop() {
  absl::MutexLock lock(&mu_);
  while (!shutting_down_) {
    int64_t idle_seconds = config::SessionSettings().idle_unload_seconds;
    mu_.Unlock();
    if (auto cfg = LoadConfig(); cfg.ok()) {
      idle_seconds = cfg->sessions.idle_unload_seconds;
      max_live_bytes_ = cfg->sessions.max_live_bytes;
    }
    mu_.Lock();
    // Look a few times per interval, so a session leaves within about 1.25
    // times it; never more often than every 250 ms.
    absl::Duration period = std::max(absl::Milliseconds(250), absl::Seconds(idle_seconds) / 4);
    period = std::min(period, absl::Seconds(60));
    if (!grace_over_) {
      period = std::max(absl::ZeroDuration(), std::min(period, grace_end_ - absl::Now()));
    }
    // A condition, not a wakeup: Shutdown may have begun while the lock was
    // let go for the config above, and must not then wait out a period.
    mu_.AwaitWithTimeout(absl::Condition(&shutting_down_), period);
    if (shutting_down_) break;
    const bool grace_ends = !grace_over_ && absl::Now() >= grace_end_;
    if (grace_ends) grace_over_ = true;
    mu_.Unlock();
    if (grace_ends) EndRestartGrace();
    UnloadIdle(absl::Seconds(idle_seconds));
    mu_.Lock();
  }
}

void SessionManager::Shutdown() {
  std::vector<std::shared_ptr<SessionRunner>> runners;
  {
    absl::MutexLock lock(&mu_);
    shutting_down_ = true;  // ends the sweeper's wait
    for (auto& [id, loaded] : runners_) runners.push_back(loaded.runner);
  }
  // A plan's wait for MCP servers to start (PlanFor).
  shutdown_->Cancel("the daemon is shutting down");
  // A plan's variable command (a model key, an MCP server's env) ends too:
  // the pool, which Shutdown waits for below, holds no preparation that
  // waits on one.
  if (deps_.variables != nullptr) deps_.variables->CancelCommands("the daemon is shutting down");
  // Every session stops at once: all are cancelled and refuse new writes
  // before any is waited for, so that none goes on acting while another
  // winds down, and the stop takes as long as the slowest session, not the
  // sum of them.
  for (const auto& r : runners) r->BeginShutdown();
  if (sweeper_.joinable()) sweeper_.join();
  for (const auto& r : runners) r->AwaitShutdown();
  // Every session is idle: what is left in the pool (replies, a plan being
  // built) finishes now.
  pool_.Shutdown();
}

}  // namespace raw::loop
