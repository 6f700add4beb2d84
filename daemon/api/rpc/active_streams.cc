#include "daemon/api/rpc/active_streams.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace raw::api::rpc {

absl::Status ActiveStreams::Add(DrainableStream* stream) {
  absl::MutexLock lock(&mu_);
  if (draining_) return absl::UnavailableError("rawd is shutting down");
  if (streams_.size() >= kMaxStreams) {
    return absl::ResourceExhaustedError(
        absl::StrCat("rawd has ", kMaxStreams,
                     " event and lease streams open, the most it keeps; close a client's "
                     "streams and try again"));
  }
  streams_.insert(stream);
  return absl::OkStatus();
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
