// Request validation shared by the RPC handlers. Each check returns
// kInvalidArgument with a message naming the field and what it must be.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw::api::rpc {

absl::Status RequireSessionId(const std::string& session_id);

// A page size as requested by a client: 0 means `default_size`, values above
// `max_size` are lowered to it, negative values are an error naming `field`.
absl::StatusOr<int> ResolvePageSize(int requested, int default_size, int max_size,
                                    const char* field);

// The daemon does not share the client's working directory, so every path a
// client sends must be absolute; it must also be free of control characters
// and at most kMaxPathBytes long (PATH_MAX).
inline constexpr size_t kMaxPathBytes = 4096;
absl::Status RequireAbsolutePath(const std::string& path, const char* field);

// An operation id a client chose (StartTurnRequest.turn_id and the like):
// empty, or of the form of NewId(prefix); INVALID_ARGUMENT naming `field`
// otherwise. An empty `prefix` takes either kind ("turn_", "compact_").
absl::Status CheckChosenId(const std::string& id, const char* prefix, const char* field);

}  // namespace raw::api::rpc
