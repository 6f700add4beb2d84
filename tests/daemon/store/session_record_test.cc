#include "daemon/store/session_record.h"

#include <limits>

#include "gtest/gtest.h"

namespace raw::store {
namespace {

constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;

TEST(ExpiresAtTest, LastActivityPlusTheConfiguredDays) {
  SessionRecord record;
  record.created_at_unix_ms = 1;
  record.last_activity_unix_ms = 1'700'000'000'000;
  EXPECT_EQ(ExpiresAt(record, 30), 1'700'000'000'000 + 30 * kDayMs);
  EXPECT_EQ(ExpiresAt(record, 1), 1'700'000'000'000 + kDayMs);
}

TEST(ExpiresAtTest, ZeroOrLessMeansNever) {
  SessionRecord record;
  record.last_activity_unix_ms = 5000;
  EXPECT_EQ(ExpiresAt(record, 0), 0);
  EXPECT_EQ(ExpiresAt(record, -3), 0);
}

TEST(ExpiresAtTest, HugeSettingsSaturate) {
  SessionRecord record;
  record.last_activity_unix_ms = 1'700'000'000'000;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(ExpiresAt(record, kMax), kMax);
  EXPECT_EQ(ExpiresAt(record, kMax / kDayMs), kMax);
  EXPECT_EQ(ExpiresAt(record, 36'500), 1'700'000'000'000 + 36'500 * kDayMs);
}

}  // namespace
}  // namespace raw::store
