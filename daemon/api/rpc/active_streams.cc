#include "daemon/api/rpc/active_streams.h"

#include <utility>

namespace raw::api::rpc {

bool ActiveStreams::Add(DrainableStream* stream) {
  absl::MutexLock lock(&mu_);
  if (draining_) return false;
  streams_.insert(stream);
  return true;
}

void ActiveStreams::Remove(DrainableStream* stream) {
  absl::MutexLock lock(&mu_);
  streams_.erase(stream);
}

void ActiveStreams::DrainAll() {
  absl::MutexLock lock(&mu_);
  draining_ = true;
  for (DrainableStream* s : streams_) s->Drain();
}

bool ActiveStreams::RunSoon(std::function<void()> task) { return pool_.Schedule(std::move(task)); }

int ActiveStreams::size() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

}  // namespace raw::api::rpc
