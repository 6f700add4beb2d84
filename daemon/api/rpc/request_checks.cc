#include "daemon/api/rpc/request_checks.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/ids.h"

namespace raw::api::rpc {

absl::Status RequireSessionId(const std::string& session_id) {
  if (session_id.empty()) {
    return absl::InvalidArgumentError("session_id is required (see ListSessions or CreateSession)");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ResolvePageSize(int requested, int default_size, int max_size,
                                    const char* field) {
  if (requested < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must not be negative (got ", requested, "); use 0 for the default of ",
        default_size));
  }
  if (requested == 0) return default_size;
  return requested > max_size ? max_size : requested;
}

absl::Status RequireAbsolutePath(const std::string& path, const char* field) {
  if (path.empty()) return absl::InvalidArgumentError(absl::StrCat(field, " is required"));
  // A NUL would cut the path short for the system calls and not for the
  // rest (the stored path, the rules that match it): two places for one
  // path. Other control characters have no place in a directory a client
  // names either, and would be shown to users as they are.
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, " must not contain control characters (a NUL, a line break)"));
    }
  }
  if (path.size() > kMaxPathBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is longer than ", kMaxPathBytes, " bytes (", path.size(), ")"));
  }
  if (path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must be an absolute path (got \"", path,
        "\"); the daemon does not share the client's working directory"));
  }
  return absl::OkStatus();
}

absl::Status CheckChosenId(const std::string& id, const char* prefix, const char* field) {
  if (id.empty()) return absl::OkStatus();
  const bool ok = *prefix != '\0' ? IsIdOfForm(id, prefix)
                                  : IsIdOfForm(id, "turn_") || IsIdOfForm(id, "compact_");
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, " \"", absl::CHexEscape(id.substr(0, 64)), "\" is not an id of the form ",
                   *prefix != '\0' ? prefix : "turn_ or compact_",
                   " followed by 26 characters of 0-9 and a-z without i, l, o and u"));
}

}  // namespace raw::api::rpc
