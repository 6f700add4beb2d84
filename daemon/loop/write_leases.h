// WriteLeases: which client may write to each session.
//
// One writer per session: a client acquires the session's write lease and
// names itself; while it holds the lease, writes (StartTurn, InterruptTurn,
// RespondToApproval, Compact, ClearContext) from anyone else are refused
// with an error naming the holder. Reading and watching need no lease. The
// holder releases it (disconnecting does that: the API ties a lease to an
// open stream) or another client takes it over explicitly, and the old
// holder is told who took it. While no client holds a session's lease, a
// write without a lease is accepted on its own (one-shot clients such as
// `raw run`).
//
// Leases live in memory only: a daemon restart ends every client's stream,
// so no lease can outlive it. Thread-safe; `on_lost` callbacks run on the
// thread that took the lease over, after the table's lock is released.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/time.h"

namespace raw::loop {

class WriteLeases {
 public:
  using LostCallback = std::function<void(const std::string& taken_by)>;

  explicit WriteLeases(const Clock& clock) : clock_(clock) {}

  // Grants the lease of `session_id` to `client_name` and returns its id.
  // When another client holds it: kFailedPrecondition naming the holder,
  // unless `take_over`, in which case the holder's `on_lost` is called.
  // `on_lost` must not block or call back into this table.
  absl::StatusOr<std::string> Acquire(const std::string& session_id,
                                      const std::string& client_name, bool take_over,
                                      LostCallback on_lost);

  // Ends the lease if `lease_id` still holds it; otherwise does nothing.
  void Release(const std::string& session_id, const std::string& lease_id);

  // OK when `lease_id` holds the session's lease, or when nobody holds it
  // and `lease_id` is empty. Otherwise kFailedPrecondition naming the
  // holder (or saying that this client's lease was taken over or ended).
  absl::Status CheckWrite(const std::string& session_id, const std::string& lease_id) const;

  // The holder's client name; empty when nobody holds the lease.
  std::string Holder(const std::string& session_id) const;

 private:
  struct Lease {
    std::string id;
    std::string client_name;
    int64_t since_unix_ms = 0;
    LostCallback on_lost;
  };
  static std::string Describe(const std::string& session_id, const Lease& lease);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);  // by session id
  // Lease ids that were taken over, with who took them, so a writer that
  // lost its lease gets a precise message. Bounded: the oldest are dropped.
  std::map<std::string, std::string> taken_over_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::loop
