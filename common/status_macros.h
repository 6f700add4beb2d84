// RETURN_IF_ERROR / ASSIGN_OR_RETURN for absl::Status code paths.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RAW_STATUS_CONCAT_INNER_(a, b) a##b
#define RAW_STATUS_CONCAT_(a, b) RAW_STATUS_CONCAT_INNER_(a, b)

#define RETURN_IF_ERROR(expr)                       \
  do {                                              \
    ::absl::Status raw_status_ = (expr);            \
    if (!raw_status_.ok()) return raw_status_;      \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  RAW_ASSIGN_OR_RETURN_IMPL_(RAW_STATUS_CONCAT_(raw_statusor_, __LINE__), lhs, rexpr)

#define RAW_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                               \
  if (!statusor.ok()) return statusor.status();          \
  lhs = std::move(statusor).value()
