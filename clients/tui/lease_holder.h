// LeaseHolder: the terminal client's write lease (a client::WriteLease)
// with its messages delivered on the UI thread.
//
// The callbacks run on the UI thread, posted through the UiQueue: granted
// (with the lease id), waiting (a handover was requested; who holds the
// lease), handover_requested (another client asks this one for the lease),
// and ended (the stream's status: kFailedPrecondition naming the holder
// when another client has it or declined the handover, an error when the
// daemon went away). Destroying it releases the lease and, as for
// Subscription, no callback runs afterwards.
//
// Create and destroy on the UI thread; the callbacks run there.
#pragma once

#include <atomic>
#include <memory>

#include "clients/lib/raw_client.h"
#include "clients/lib/write_lease.h"
#include "clients/tui/ui_queue.h"

namespace raw::tui {

class LeaseHolder {
 public:
  using Callbacks = client::WriteLease::Callbacks;

  LeaseHolder(std::shared_ptr<client::RawClient> client, UiQueue& ui,
              const v1::AcquireLeaseRequest& request, Callbacks callbacks);
  ~LeaseHolder();
  LeaseHolder(const LeaseHolder&) = delete;
  LeaseHolder& operator=(const LeaseHolder&) = delete;

 private:
  std::shared_ptr<std::atomic<bool>> alive_;
  // Declared before lease_: the lease's thread uses it until joined.
  std::shared_ptr<client::RawClient> client_;
  std::unique_ptr<client::WriteLease> lease_;
};

}  // namespace raw::tui
