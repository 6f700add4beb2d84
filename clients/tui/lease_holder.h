// LeaseHolder: holds a session's write lease (AcquireLease) on its own
// thread for as long as it lives.
//
// The outcome reaches the UI thread through the callbacks: granted (with
// the lease id), lost (who took it over), or ended (the stream's status:
// kFailedPrecondition naming the holder when another client has it,
// kUnimplemented from a daemon without leases, an error when the daemon
// went away). Destroying it releases the lease and, as for Subscription, no
// callback runs afterwards.
//
// Create and destroy on the UI thread; the callbacks run there.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "clients/lib/raw_client.h"
#include "clients/tui/ui_queue.h"

namespace raw::tui {

class LeaseHolder {
 public:
  struct Callbacks {
    std::function<void(const std::string& lease_id)> granted;
    std::function<void(const std::string& taken_by)> lost;
    std::function<void(const absl::Status& status)> ended;
  };

  LeaseHolder(std::shared_ptr<client::RawClient> client, UiQueue& ui,
              const v1::AcquireLeaseRequest& request, Callbacks callbacks);
  ~LeaseHolder();
  LeaseHolder(const LeaseHolder&) = delete;
  LeaseHolder& operator=(const LeaseHolder&) = delete;

 private:
  std::shared_ptr<std::atomic<bool>> alive_;
  client::StreamCanceller canceller_;
  std::thread thread_;
};

}  // namespace raw::tui
