// The status-only fallback every error classifier shares, and the
// x-should-retry override.
#include "daemon/providers/http_status_verdict.h"

#include "gtest/gtest.h"

namespace raw::providers {
namespace {

void ExpectVerdict(int status, ErrorKind kind, bool retryable) {
  Verdict v = VerdictForStatus(status);
  EXPECT_EQ(v.kind, kind) << status;
  EXPECT_EQ(v.retryable, retryable) << status;
}

TEST(HttpStatusVerdictTest, EachStatusClass) {
  ExpectVerdict(400, ErrorKind::kInvalidRequest, false);
  ExpectVerdict(413, ErrorKind::kInvalidRequest, false);
  ExpectVerdict(401, ErrorKind::kAuth, false);
  ExpectVerdict(402, ErrorKind::kBilling, false);
  ExpectVerdict(403, ErrorKind::kPermission, false);
  ExpectVerdict(404, ErrorKind::kNotFound, false);
  ExpectVerdict(408, ErrorKind::kTimeout, true);
  ExpectVerdict(504, ErrorKind::kTimeout, true);
  ExpectVerdict(409, ErrorKind::kServer, true);
  ExpectVerdict(429, ErrorKind::kRateLimited, true);
  ExpectVerdict(503, ErrorKind::kOverloaded, true);
  ExpectVerdict(529, ErrorKind::kOverloaded, true);
  ExpectVerdict(500, ErrorKind::kServer, true);
  ExpectVerdict(599, ErrorKind::kServer, true);
  ExpectVerdict(418, ErrorKind::kInvalidRequest, false);
  ExpectVerdict(302, ErrorKind::kUnknown, false);
}

TEST(HttpStatusVerdictTest, ShouldRetryHeaderOverridesOnlyWithTrueOrFalse) {
  ErrorEvent event;
  event.retryable = true;
  ApplyShouldRetry({{"X-Should-Retry", " FALSE "}}, &event);
  EXPECT_FALSE(event.retryable);
  ApplyShouldRetry({{"x-should-retry", "true"}}, &event);
  EXPECT_TRUE(event.retryable);
  ApplyShouldRetry({{"x-should-retry", "maybe"}}, &event);
  EXPECT_TRUE(event.retryable);
  ApplyShouldRetry({}, &event);
  EXPECT_TRUE(event.retryable);
}

}  // namespace
}  // namespace raw::providers
