#include "clients/tui/lease_holder.h"

#include <utility>

namespace raw::tui {
namespace {

// Wraps `fn` (called on the lease thread) so that it runs on the UI thread,
// and only while the holder lives.
template <typename Arg>
std::function<void(const Arg&)> OnUi(UiQueue& ui, std::shared_ptr<std::atomic<bool>> alive,
                                     std::function<void(const Arg&)> fn) {
  if (!fn) return nullptr;
  return [&ui, alive = std::move(alive), fn = std::move(fn)](const Arg& arg) {
    ui.Post([alive, fn, arg] {
      if (*alive) fn(arg);
    });
  };
}

}  // namespace

LeaseHolder::LeaseHolder(std::shared_ptr<client::RawClient> client, UiQueue& ui,
                         const v1::AcquireLeaseRequest& request, Callbacks callbacks)
    : alive_(std::make_shared<std::atomic<bool>>(true)), client_(std::move(client)) {
  Callbacks posted;
  posted.granted = OnUi(ui, alive_, std::move(callbacks.granted));
  posted.waiting = OnUi(ui, alive_, std::move(callbacks.waiting));
  posted.handover_requested = OnUi(ui, alive_, std::move(callbacks.handover_requested));
  posted.ended = OnUi(ui, alive_, std::move(callbacks.ended));
  lease_ = std::make_unique<client::WriteLease>(*client_, request, std::move(posted));
}

LeaseHolder::~LeaseHolder() {
  *alive_ = false;
  lease_.reset();  // releases the lease and joins its thread
}

}  // namespace raw::tui
