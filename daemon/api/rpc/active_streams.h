// ActiveStreams: the open server streams of one service (Subscribe and
// AcquireLease), so that shutdown can end them cleanly instead of waiting
// for the server's deadline.
//
// A stream registers itself when it starts and removes itself in OnDone.
// DrainAll() asks every stream to deliver what is already queued and then
// finish with UNAVAILABLE; streams that start afterwards finish at once.
//
// Thread-safe. Drain() is called with the registry's lock held, so a stream
// cannot be destroyed while it is being drained (Remove waits); Drain() must
// therefore be quick and must not call back into the registry.
#pragma once

#include <set>

#include "absl/synchronization/mutex.h"

namespace raw::api::rpc {

class DrainableStream {
 public:
  virtual ~DrainableStream() = default;
  virtual void Drain() = 0;
};

class ActiveStreams {
 public:
  // Returns false when draining already began; the caller must then finish
  // its stream immediately (and not call Remove).
  bool Add(DrainableStream* stream);
  void Remove(DrainableStream* stream);
  void DrainAll();
  int size();

 private:
  absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  std::set<DrainableStream*> streams_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::api::rpc
