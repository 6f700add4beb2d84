#include "clients/lib/write_lease.h"

namespace raw::client {

class WriteLease::Handler : public LeaseHandler {
 public:
  explicit Handler(WriteLease& lease) : lease_(lease) {}

  void OnLeaseEvent(const v1::LeaseEvent& event) override {
    const Callbacks& callbacks = lease_.callbacks_;
    switch (event.kind_case()) {
      case v1::LeaseEvent::kGranted: {
        {
          absl::MutexLock lock(&lease_.mu_);
          lease_.lease_id_ = event.granted().lease_id();
        }
        if (callbacks.granted) callbacks.granted(event.granted().lease_id());
        break;
      }
      case v1::LeaseEvent::kWaiting:
        if (callbacks.waiting) callbacks.waiting(event.waiting().holder());
        break;
      case v1::LeaseEvent::kHandoverRequested:
        if (callbacks.handover_requested) {
          callbacks.handover_requested(event.handover_requested().requester());
        }
        break;
      case v1::LeaseEvent::kHandoverWithdrawn:
        if (callbacks.handover_withdrawn) callbacks.handover_withdrawn();
        break;
      default:
        break;  // a message of a newer protocol: nothing to do with it
    }
  }

 private:
  WriteLease& lease_;
};

WriteLease::WriteLease(RawClient& client, const v1::AcquireLeaseRequest& request,
                       Callbacks callbacks)
    : callbacks_(std::move(callbacks)) {
  thread_ = std::thread([this, &client, request] {
    Handler handler(*this);
    absl::Status status = client.AcquireLease(request, handler, canceller_);
    {
      absl::MutexLock lock(&mu_);
      ended_ = status;
    }
    if (callbacks_.ended) callbacks_.ended(status);
  });
}

WriteLease::~WriteLease() {
  canceller_.Cancel();
  thread_.join();
}

absl::StatusOr<std::string> WriteLease::WaitGranted() {
  absl::MutexLock lock(&mu_);
  auto known = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return lease_id_.has_value() || ended_.has_value();
  };
  mu_.Await(absl::Condition(&known));
  if (lease_id_) return *lease_id_;
  if (ended_->ok()) return absl::UnavailableError("the daemon ended the lease stream");
  return *ended_;
}

}  // namespace raw::client
