#include "common/thread_start.h"

#include <atomic>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace raw {
namespace {

// The armed refusal, if any. `armed` is read without the lock, so that a
// start costs one relaxed load when no test armed anything.
struct Refusal {
  std::atomic<bool> armed{false};
  absl::Mutex mu;
  std::string match ABSL_GUARDED_BY(mu);
  int allowed ABSL_GUARDED_BY(mu) = 0;
  int refused ABSL_GUARDED_BY(mu) = 0;
};

// Never freed: a detached thread may start while the process exits.
Refusal& TheRefusal() {
  static Refusal* refusal = new Refusal;
  return *refusal;
}

}  // namespace

namespace thread_start_internal {

void MaybeRefuse(std::string_view what) {
  Refusal& r = TheRefusal();
  if (!r.armed.load(std::memory_order_relaxed)) return;
  absl::MutexLock lock(&r.mu);
  if (!r.armed.load(std::memory_order_relaxed) || what.find(r.match) == std::string_view::npos) {
    return;
  }
  if (r.allowed > 0) {
    --r.allowed;
    return;
  }
  ++r.refused;
  throw std::system_error(EAGAIN, std::generic_category(), "refused for a test");
}

absl::Status Refused(std::string_view what, const std::system_error& error) {
  return absl::ResourceExhaustedError(
      absl::StrCat("could not start a thread for ", std::string(what), ": ", error.what()));
}

}  // namespace thread_start_internal

RefuseThreadStartsForTesting::RefuseThreadStartsForTesting(std::string match, int allowed) {
  Refusal& r = TheRefusal();
  absl::MutexLock lock(&r.mu);
  r.match = std::move(match);
  r.allowed = allowed;
  r.refused = 0;
  r.armed.store(true, std::memory_order_relaxed);
}

RefuseThreadStartsForTesting::~RefuseThreadStartsForTesting() {
  Refusal& r = TheRefusal();
  absl::MutexLock lock(&r.mu);
  r.armed.store(false, std::memory_order_relaxed);
  r.match.clear();
}

int RefuseThreadStartsForTesting::refused() const {
  Refusal& r = TheRefusal();
  absl::MutexLock lock(&r.mu);
  return r.refused;
}

}  // namespace raw
