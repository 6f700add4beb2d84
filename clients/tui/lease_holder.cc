#include "clients/tui/lease_holder.h"

namespace raw::tui {
namespace {

class Forwarder : public client::LeaseHandler {
 public:
  Forwarder(UiQueue& ui, std::shared_ptr<std::atomic<bool>> alive,
            const LeaseHolder::Callbacks& callbacks)
      : ui_(ui), alive_(std::move(alive)), callbacks_(callbacks) {}

  void OnLeaseEvent(const v1::LeaseEvent& event) override {
    if (event.has_granted()) {
      ui_.Post([alive = alive_, fn = callbacks_.granted, id = event.granted().lease_id()] {
        if (*alive) fn(id);
      });
    }
  }

 private:
  UiQueue& ui_;
  std::shared_ptr<std::atomic<bool>> alive_;
  LeaseHolder::Callbacks callbacks_;
};

}  // namespace

LeaseHolder::LeaseHolder(std::shared_ptr<client::RawClient> client, UiQueue& ui,
                         const v1::AcquireLeaseRequest& request, Callbacks callbacks)
    : alive_(std::make_shared<std::atomic<bool>>(true)) {
  thread_ = std::thread([this, client = std::move(client), &ui, request,
                         callbacks = std::move(callbacks), alive = alive_] {
    Forwarder forwarder(ui, alive, callbacks);
    absl::Status status = client->AcquireLease(request, forwarder, canceller_);
    ui.Post([alive, fn = callbacks.ended, status] {
      if (*alive) fn(status);
    });
  });
}

LeaseHolder::~LeaseHolder() {
  *alive_ = false;
  canceller_.Cancel();
  thread_.join();
}

}  // namespace raw::tui
