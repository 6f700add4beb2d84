#include "daemon/loop/write_leases.h"

#include <algorithm>
#include <ctime>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/ids.h"

namespace raw::loop {
namespace {

std::string ClockTime(int64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

LeaseClient Named(LeaseClient client) {
  if (client.name.empty()) client.name = "an unnamed client";
  return client;
}

}  // namespace

std::string WriteLeases::DescribeHolder(const std::string& session_id,
                                        const LeaseHolderInfo& holder) {
  std::string details;
  if (!holder.client.kind.empty()) details = holder.client.kind;
  if (holder.client.pid > 0) {
    absl::StrAppend(&details, details.empty() ? "" : ", ", "pid ", holder.client.pid);
  }
  absl::StrAppend(&details, details.empty() ? "" : ", ", "since ",
                  ClockTime(holder.since_unix_ms));
  return absl::StrCat("session ", session_id, " is open for writing in \"", holder.client.name,
                      "\" (", details, "); only that client can write to it until it lets go");
}

absl::StatusOr<WriteLeases::Acquired> WriteLeases::Acquire(const std::string& session_id,
                                                           const LeaseClient& client,
                                                           WhenHeld when_held,
                                                           LeaseCallbacks callbacks) {
  Acquired acquired;
  std::function<void(const LeaseHolderInfo&)> tell_holder;
  LeaseHolderInfo oldest;
  HolderNews news;
  LeaseHolderInfo asking{Named(client), clock_.NowUnixMs()};
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    const bool rejoining =
        when_held == WhenHeld::kRejoinFollowing && clock_.NowUnixMs() < grace_until_unix_ms_;
    if (rejoining && it == leases_.end()) {
      it = leases_.emplace(session_id, Lease{}).first;  // free, kept for the waiters
    }
    if (it == leases_.end() || (it->second.id.empty() && !rejoining)) {
      acquired.lease_id = NewId("lease_");
      Lease& lease = leases_[session_id];
      lease.id = acquired.lease_id;
      lease.holder = asking;
      lease.callbacks = std::move(callbacks);
      // Requests waiting on a free lease in the restart grace go on waiting
      // on this holder (none asked it for a handover); they hear who it is.
      news = NewsOfHolder(lease);
    } else if (when_held == WhenHeld::kRefuse) {
      return absl::FailedPreconditionError(DescribeHolder(session_id, it->second.holder));
    } else {
      acquired.wait_id = NewId("wait_");
      acquired.holder = it->second.holder;
      const bool asks = when_held == WhenHeld::kRequestHandover;
      it->second.waiters.push_back(Waiter{acquired.wait_id, asking, std::move(callbacks), asks});
      if (asks && !it->second.id.empty()) {
        tell_holder = it->second.callbacks.handover_requested;
        oldest = OldestAsking(it->second)->info;
      }
    }
  }
  if (tell_holder) tell_holder(oldest);
  for (const auto& tell : news) tell();
  return acquired;
}

const WriteLeases::Waiter* WriteLeases::OldestAsking(const Lease& lease) {
  for (const Waiter& w : lease.waiters) {
    if (w.asks) return &w;
  }
  return nullptr;
}

WriteLeases::HolderNews WriteLeases::NewsOfHolder(const Lease& lease) {
  HolderNews news;
  for (const Waiter& w : lease.waiters) {
    if (w.callbacks.holder_changed) {
      news.push_back([tell = w.callbacks.holder_changed, holder = lease.holder] { tell(holder); });
    }
  }
  return news;
}

void WriteLeases::Release(const std::string& session_id, const std::string& lease_id) {
  if (lease_id.empty()) return;  // an empty id is a free lease's
  PassOn(session_id, lease_id);
}

void WriteLeases::EndReservation(const std::string& session_id) { PassOn(session_id, ""); }

void WriteLeases::PassOn(const std::string& session_id, const std::string& lease_id) {
  std::function<void(const std::string&)> grant;
  std::string granted_id;
  std::function<void(const LeaseHolderInfo&)> tell_new_holder;
  std::optional<LeaseHolderInfo> still_asking;
  HolderNews news;
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    if (it == leases_.end() || it->second.id != lease_id) return;
    Lease& lease = it->second;
    if (lease.waiters.empty()) {
      leases_.erase(it);
      return;
    }
    // A handover request first: the holder released it to that client.
    auto chosen = std::find_if(lease.waiters.begin(), lease.waiters.end(),
                               [](const Waiter& w) { return w.asks; });
    if (chosen == lease.waiters.end()) chosen = lease.waiters.begin();
    Waiter next = std::move(*chosen);
    lease.waiters.erase(chosen);
    granted_id = NewId("lease_");
    lease.id = granted_id;
    lease.holder = next.info;
    lease.holder.since_unix_ms = clock_.NowUnixMs();
    lease.callbacks = std::move(next.callbacks);
    grant = lease.callbacks.granted;
    // The new holder hears of the requests still waiting (the oldest, the
    // one its release would grant), after its grant.
    tell_new_holder = lease.callbacks.handover_requested;
    if (const Waiter* w = OldestAsking(lease)) still_asking = w->info;
    // The requests still waiting hear who holds the session now.
    news = NewsOfHolder(lease);
  }
  if (grant) grant(granted_id);
  if (tell_new_holder && still_asking) tell_new_holder(*still_asking);
  for (const auto& tell : news) tell();
}

void WriteLeases::CancelWait(const std::string& session_id, const std::string& wait_id) {
  std::function<void(const LeaseHolderInfo&)> tell_requested;
  std::function<void()> tell_withdrawn;
  LeaseHolderInfo next;
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    if (it == leases_.end()) return;
    Lease& lease = it->second;
    const Waiter* oldest_before = OldestAsking(lease);
    bool was_oldest = false;
    for (auto w = lease.waiters.begin(); w != lease.waiters.end(); ++w) {
      if (w->id == wait_id) {
        was_oldest = &*w == oldest_before;
        lease.waiters.erase(w);
        break;
      }
    }
    // The holder hears when the request its release would grant changes:
    // the next one asks now, or nobody does.
    if (was_oldest && !lease.id.empty()) {
      if (const Waiter* w = OldestAsking(lease)) {
        tell_requested = lease.callbacks.handover_requested;
        next = w->info;
      } else {
        tell_withdrawn = lease.callbacks.handover_withdrawn;
      }
    }
    // A free lease is kept only for its waiters.
    if (lease.id.empty() && lease.waiters.empty()) leases_.erase(it);
  }
  if (tell_requested) tell_requested(next);
  if (tell_withdrawn) tell_withdrawn();
}

void WriteLeases::SetRestartGrace(int64_t until_unix_ms) {
  absl::MutexLock lock(&mu_);
  grace_until_unix_ms_ = until_unix_ms;
}

std::vector<std::string> WriteLeases::ReservedSessions() const {
  std::vector<std::string> reserved;
  absl::MutexLock lock(&mu_);
  for (const auto& [session_id, lease] : leases_) {
    if (lease.id.empty()) reserved.push_back(session_id);
  }
  return reserved;
}

absl::StatusOr<int> WriteLeases::Decline(const std::string& session_id,
                                         const std::string& lease_id) {
  std::deque<Waiter> declined;
  LeaseHolderInfo holder;
  std::function<void()> tell_withdrawn;
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    if (it == leases_.end() || lease_id.empty() || it->second.id != lease_id) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the write lease ", lease_id.empty() ? "(none)" : lease_id, " does not hold session ",
          session_id, "; only the holder can decline a handover"));
    }
    std::deque<Waiter>& waiters = it->second.waiters;
    for (auto w = waiters.begin(); w != waiters.end();) {
      if (w->asks) {
        declined.push_back(std::move(*w));
        w = waiters.erase(w);
      } else {
        ++w;
      }
    }
    holder = it->second.holder;
    if (!declined.empty()) tell_withdrawn = it->second.callbacks.handover_withdrawn;
  }
  const absl::Status why = absl::FailedPreconditionError(
      absl::StrCat(DescribeHolder(session_id, holder), "; it kept the lease"));
  for (Waiter& w : declined) {
    if (w.callbacks.declined) w.callbacks.declined(why);
  }
  if (tell_withdrawn) tell_withdrawn();
  return static_cast<int>(declined.size());
}

void WriteLeases::EndSession(const std::string& session_id, const absl::Status& why) {
  std::optional<Lease> ended;
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    if (it == leases_.end()) return;
    ended = std::move(it->second);
    leases_.erase(it);
  }
  if (ended->callbacks.ended) ended->callbacks.ended(why);
  for (Waiter& w : ended->waiters) {
    if (w.callbacks.declined) w.callbacks.declined(why);
  }
}

absl::Status WriteLeases::CheckWrite(const std::string& session_id,
                                     const std::string& lease_id) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(session_id);
  if (it != leases_.end() && !it->second.id.empty()) {
    if (!lease_id.empty() && it->second.id == lease_id) return absl::OkStatus();
    return absl::FailedPreconditionError(DescribeHolder(session_id, it->second.holder));
  }
  if (lease_id.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("session ", session_id,
                     " is not open for writing: a write needs the session's write lease "
                     "(AcquireLease)"));
  }
  return absl::FailedPreconditionError(absl::StrCat("the write lease ", lease_id,
                                                    " does not hold session ", session_id,
                                                    " (it ended); acquire the lease again"));
}

std::optional<LeaseHolderInfo> WriteLeases::Holder(const std::string& session_id) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(session_id);
  if (it == leases_.end() || it->second.id.empty()) return std::nullopt;
  return it->second.holder;
}

bool WriteLeases::InUse(const std::string& session_id) const {
  absl::MutexLock lock(&mu_);
  return leases_.count(session_id) > 0;
}

}  // namespace raw::loop
