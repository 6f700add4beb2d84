#include "daemon/store/session_record.h"

#include <limits>

namespace raw::store {

int64_t ExpiresAt(const SessionRecord& record, int64_t expire_after_days) {
  if (expire_after_days <= 0) return 0;
  constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t base = record.last_activity_unix_ms;
  if (expire_after_days > kMax / kDayMs) return kMax;
  const int64_t span = expire_after_days * kDayMs;
  if (base > 0 && span > kMax - base) return kMax;
  return base + span;
}

}  // namespace raw::store
