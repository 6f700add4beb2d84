// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status code paths.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RAW_STATUS_CONCAT_INNER_(a, b) a##b
#define RAW_STATUS_CONCAT_(a, b) RAW_STATUS_CONCAT_INNER_(a, b)

// Each expansion names its status uniquely, so that a RETURN_IF_ERROR in a
// lambda inside another's argument does not shadow the outer one's.
#define RETURN_IF_ERROR(expr) \
  RAW_RETURN_IF_ERROR_IMPL_(RAW_STATUS_CONCAT_(raw_status_, __COUNTER__), expr)

#define RAW_RETURN_IF_ERROR_IMPL_(status, expr) \
  do {                                          \
    ::absl::Status status = (expr);             \
    if (!status.ok()) return status;            \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  RAW_ASSIGN_OR_RETURN_IMPL_(RAW_STATUS_CONCAT_(raw_statusor_, __LINE__), lhs, rexpr)

#define RAW_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                               \
  if (!statusor.ok()) return statusor.status();          \
  lhs = std::move(statusor).value()
