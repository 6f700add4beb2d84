#include "daemon/providers/http_status_verdict.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"

namespace raw::providers {

Verdict VerdictForStatus(int status) {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return {ErrorKind::kInvalidRequest, false};
    case 401:
      return {ErrorKind::kAuth, false};
    case 402:
      return {ErrorKind::kBilling, false};
    case 403:
      return {ErrorKind::kPermission, false};
    case 404:
      return {ErrorKind::kNotFound, false};
    case 408:
    case 504:
      return {ErrorKind::kTimeout, true};
    case 409:
      return {ErrorKind::kServer, true};
    case 429:
      return {ErrorKind::kRateLimited, true};
    case 503:
    case 529:
      return {ErrorKind::kOverloaded, true};
    default:
      break;
  }
  if (status >= 500) return {ErrorKind::kServer, true};
  if (status >= 400) return {ErrorKind::kInvalidRequest, false};
  return {ErrorKind::kUnknown, false};
}

void ApplyShouldRetry(const http::Headers& headers, ErrorEvent* event) {
  std::string should_retry = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(http::FindHeader(headers, "x-should-retry")));
  if (should_retry == "true") event->retryable = true;
  if (should_retry == "false") event->retryable = false;
}

}  // namespace raw::providers
