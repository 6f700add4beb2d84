// WriteLease: holds a session's write lease (an AcquireLease stream) on a
// thread of its own for as long as it lives.
//
// A session has one writer at a time; every write (StartTurn,
// InterruptTurn, RespondToApproval, Compact, ClearContext) carries the
// writer's lease id. The lease ends when its stream ends: destroying the
// WriteLease releases it. The daemon never takes a live lease away; a
// client that wants the lease while another holds it asks for a handover
// (request_handover) and waits until the holder releases or declines.
//
// The stream's messages reach the Callbacks on the lease thread, in order:
// `granted` (possibly after `waiting`), `handover_requested` and
// `handover_withdrawn` while holding, and last `ended` with the stream's
// status (see
// RawClient::AcquireLease). WaitGranted() serves callers that simply block
// until the outcome is known (raw run).
//
// Thread-safety: construct and destroy on one thread; WaitGranted from any.
// The destructor cancels the stream and joins the thread: no callback runs
// after it returns. `client` must outlive the WriteLease.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "clients/lib/raw_client.h"

namespace raw::client {

class WriteLease {
 public:
  struct Callbacks {
    std::function<void(const std::string& lease_id)> granted;
    std::function<void(const v1::LeaseHolder& holder)> waiting;
    // While holding: the oldest client asking for the lease (again when
    // that changes), and that nobody asks any more.
    std::function<void(const v1::LeaseHolder& requester)> handover_requested;
    std::function<void()> handover_withdrawn;
    std::function<void(const absl::Status& status)> ended;
  };

  WriteLease(RawClient& client, const v1::AcquireLeaseRequest& request, Callbacks callbacks = {});
  ~WriteLease();
  WriteLease(const WriteLease&) = delete;
  WriteLease& operator=(const WriteLease&) = delete;

  // Blocks until the lease is granted (returns its id) or the stream has
  // ended without a grant (returns why: kFailedPrecondition naming the
  // holder when another client holds it).
  absl::StatusOr<std::string> WaitGranted();

 private:
  class Handler;

  Callbacks callbacks_;
  StreamCanceller canceller_;
  absl::Mutex mu_;
  std::optional<std::string> lease_id_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace raw::client
