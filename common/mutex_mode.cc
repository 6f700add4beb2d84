#include "common/mutex_mode.h"

#include "absl/synchronization/mutex.h"

namespace raw {

void ConfigureMutexDeadlockDetection() {
#ifndef RAW_KEEP_DEADLOCK_DETECTION
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

}  // namespace raw
