// WriteLeases: which client may write to each session.
//
// One writer per session, as the spec says: "A session can be open in one
// writer at a time. Another process can read it but cannot write to it
// until the writer releases it." A client acquires the session's write
// lease; every write (StartTurn, InterruptTurn, RespondToApproval, Compact,
// ClearContext) must carry the lease id of its holder and is refused
// otherwise, naming the holder. Reading and watching need no lease.
//
// A lease ends only when its holder releases it (the API ties a lease to an
// open stream, so a client's exit, crash or kill -9 releases it as soon as
// the daemon sees the stream end). Nobody takes a live holder's lease: a
// client may instead request a handover. The holder is told who asks
// (`handover_requested`, naming the oldest request) and either releases,
// which grants the lease to the oldest waiting requester (`granted`), or
// declines, which ends every waiting request (`declined`). When the last
// request goes (withdrawn, or declined) the holder is told so
// (`handover_withdrawn`), so that it does not hand the session to a client
// that no longer asks. A client may also wait without asking
// (kWaitForRelease: a follower that takes the session when its writer lets
// go): the holder is not told, a decline leaves it waiting, and a release
// grants it only when no handover request waits. Every request still
// waiting when the lease passes to another client is told who holds it now
// (`holder_changed`), so that followers name the right writer. Removing the session ends
// its lease and every waiting request (EndSession).
//
// Leases live in memory only: a daemon restart ends every client's stream,
// so no lease can outlive it.
//
// Who calls what: every change of a session's entry (Acquire, Release,
// CancelWait, Decline, EndSession) is made by a command on that session's queue
// (SessionRunner::AcquireLease and the others), so lease changes and the
// session's writes run in one order and a lease never changes while a write
// command of its session runs. The reads (CheckWrite, Holder, InUse) come
// from any thread: the table keeps its own lock for them. Callbacks run
// after that lock is released, on the thread of the change that caused them
// (so on the session's queue); they must not block and must not call back
// into this table (they may post to the queue).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/time.h"

namespace raw::loop {

// Who holds or asks for a lease, as the client describes itself.
struct LeaseClient {
  std::string name;  // e.g. "raw (pid 4242)"
  std::string kind;  // "raw", "raw run", "raw-dashboard", "raw-acp"
  int64_t pid = 0;
};

struct LeaseHolderInfo {
  LeaseClient client;
  int64_t since_unix_ms = 0;  // granted at (or, for a requester, asked at)
};

struct LeaseCallbacks {
  // A waiting request was granted: the lease id its writes carry.
  std::function<void(const std::string& lease_id)> granted;
  // To the holder: a client asks for the lease. `requester` is the oldest
  // request still waiting, the one a release grants; it runs again, naming
  // the next one, whenever that request is withdrawn while others ask.
  std::function<void(const LeaseHolderInfo& requester)> handover_requested;
  // A waiting request ends without the lease (the holder declined, or the
  // session was removed).
  std::function<void(const absl::Status& why)> declined;
  // To the holder: the lease ended without a release (the session was
  // removed, see EndSession).
  std::function<void(const absl::Status& why)> ended;
  // To a waiting request: another client holds the lease now (the holder
  // handed it to an older request, or a client took a free lease kept in
  // the restart grace). The request goes on waiting, now on `holder`.
  std::function<void(const LeaseHolderInfo& holder)> holder_changed;
  // To the holder: no handover request waits any more (each was withdrawn
  // or declined). A release now would grant a quiet wait, or nobody.
  std::function<void()> handover_withdrawn;
};

enum class WhenHeld {
  kRefuse,           // fail at once, naming the holder
  kRequestHandover,  // ask the holder and wait
  kWaitForRelease,   // wait without asking, until the holder lets go
  // As kWaitForRelease, for a follower that lost its connection (the daemon
  // restarted): during the restart grace (SetRestartGrace) a free lease is
  // not granted to it at once, so that the client that wrote before comes
  // back first; it waits, and is granted when the grace ends with nobody
  // holding the session (EndReservation), or when a holder lets go.
  kRejoinFollowing,
};

class WriteLeases {
 public:
  struct Acquired {
    std::string lease_id;  // set when granted at once
    std::string wait_id;   // set when waiting for a handover
    LeaseHolderInfo holder;  // who holds it, when waiting
  };

  explicit WriteLeases(const Clock& clock) : clock_(clock) {}

  // Until `until_unix_ms`, kRejoinFollowing waits on a free lease.
  void SetRestartGrace(int64_t until_unix_ms);
  // The sessions where a kRejoinFollowing request waits while nobody holds
  // the lease.
  std::vector<std::string> ReservedSessions() const;
  // Once the restart grace is over: the oldest request waiting on the free
  // lease of `session_id` is granted it. Nothing when a client holds it.
  void EndReservation(const std::string& session_id);

  // Grants the lease of `session_id` when nobody holds it. When another
  // client holds it: kFailedPrecondition naming the holder (kRefuse), or a
  // waiting request (kRequestHandover): the holder's handover_requested
  // runs, and later this request's granted or declined; or a quiet wait
  // (kWaitForRelease): later its granted, or declined only when the session
  // is removed.
  absl::StatusOr<Acquired> Acquire(const std::string& session_id, const LeaseClient& client,
                                   WhenHeld when_held, LeaseCallbacks callbacks);

  // Ends the lease if `lease_id` still holds it; the oldest waiting handover
  // request, else the oldest quiet wait, if any, is granted it. Otherwise
  // does nothing.
  void Release(const std::string& session_id, const std::string& lease_id);
  // Withdraws a waiting request (its client went away). When it was a
  // handover request, the holder hears who asks now (handover_requested)
  // or that nobody does (handover_withdrawn).
  void CancelWait(const std::string& session_id, const std::string& wait_id);
  // The holder keeps its lease: every waiting handover request is declined
  // (quiet waits go on), and when there was one the holder's
  // handover_withdrawn runs (a request it heard of after it chose to keep
  // the lease was declined too). Returns how many; kFailedPrecondition
  // when `lease_id` does not hold the lease.
  absl::StatusOr<int> Decline(const std::string& session_id, const std::string& lease_id);

  // For a session that no longer exists: its lease and every waiting
  // request end, the holder's `ended` and each waiter's `declined` running
  // with `why`. Nothing of the session is left in the table.
  void EndSession(const std::string& session_id, const absl::Status& why);

  // OK only when `lease_id` holds the session's lease. Otherwise
  // kFailedPrecondition naming the holder, or saying that nobody holds it.
  absl::Status CheckWrite(const std::string& session_id, const std::string& lease_id) const;

  std::optional<LeaseHolderInfo> Holder(const std::string& session_id) const;
  // True while a client holds the session's lease or waits for it.
  bool InUse(const std::string& session_id) const;

  // "session S is open for writing in "NAME" (KIND, pid P, since T)".
  static std::string DescribeHolder(const std::string& session_id, const LeaseHolderInfo& holder);

 private:
  struct Waiter {
    std::string id;
    LeaseHolderInfo info;
    LeaseCallbacks callbacks;
    bool asks = true;  // a handover request, not a quiet wait
  };
  // A lease whose id is empty is free: kept only for the requests waiting
  // in the restart grace (kRejoinFollowing); the next other request takes
  // it at once.
  struct Lease {
    std::string id;
    LeaseHolderInfo holder;
    LeaseCallbacks callbacks;
    std::deque<Waiter> waiters;
  };

  // Ends the lease `lease_id` ("" for a free one) and grants it to the
  // oldest waiting handover request, else the oldest quiet wait.
  void PassOn(const std::string& session_id, const std::string& lease_id);
  // The holder_changed callbacks of `lease`'s waiters, with its holder.
  using HolderNews = std::vector<std::function<void()>>;
  static HolderNews NewsOfHolder(const Lease& lease);
  // The oldest handover request waiting on `lease`, if any.
  static const Waiter* OldestAsking(const Lease& lease);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);  // by session id
  int64_t grace_until_unix_ms_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::loop
