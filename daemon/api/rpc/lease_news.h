// How a lease stream queues the messages it has not written yet.
//
// `handover_requested` and `handover_withdrawn` tell the holder how things
// stand (who asks now, or that nobody does), so one still queued is
// replaced by the next: a holder that does not read its stream keeps one,
// however often other clients ask and withdraw. Every other message is
// queued in order.
#pragma once

#include <deque>
#include <utility>

#include "raw/v1/raw_service.pb.h"

namespace raw::api::rpc {

inline bool IsHandoverNews(const raw::v1::LeaseEvent& event) {
  return event.has_handover_requested() || event.has_handover_withdrawn();
}

inline void QueueLeaseEvent(std::deque<raw::v1::LeaseEvent>& pending, raw::v1::LeaseEvent event) {
  if (IsHandoverNews(event) && !pending.empty() && IsHandoverNews(pending.back())) {
    pending.back() = std::move(event);
  } else {
    pending.push_back(std::move(event));
  }
}

}  // namespace raw::api::rpc
