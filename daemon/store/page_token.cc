#include "daemon/store/page_token.h"

#include <limits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace raw::store {
namespace {

// FNV-1a: a stable (cross-process, cross-version) checksum of the session id.
uint32_t Checksum(const std::string& text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

// The token as it may appear in a message: escaped and shortened.
std::string Quote(const std::string& token) {
  constexpr size_t kMax = 64;
  std::string shown = absl::CHexEscape(token.substr(0, kMax));
  return absl::StrCat("\"", shown, token.size() > kMax ? "...\"" : "\"");
}

// Splits the decoded text of a token with the given version prefix into
// exactly `parts` fields (the last one may contain ':').
absl::StatusOr<std::vector<std::string>> Unwrap(const std::string& token, const char* what,
                                                const char* version, int parts) {
  std::string text;
  if (token.empty() || !absl::WebSafeBase64Unescape(token, &text)) {
    return absl::InvalidArgumentError(absl::StrCat("malformed ", what, " ", Quote(token)));
  }
  std::vector<std::string> fields = absl::StrSplit(text, absl::MaxSplits(':', parts - 1));
  if (static_cast<int>(fields.size()) != parts || fields[0] != version) {
    return absl::InvalidArgumentError(absl::StrCat("malformed ", what, " ", Quote(token)));
  }
  return fields;
}

}  // namespace

std::string EncodeHistoryCursor(const std::string& session_id, uint64_t seq) {
  return absl::WebSafeBase64Escape(
      absl::StrFormat("h1:%d:%08x", seq, Checksum(session_id)));
}

absl::StatusOr<uint64_t> DecodeHistoryCursor(const std::string& session_id,
                                             const std::string& cursor) {
  absl::StatusOr<std::vector<std::string>> fields = Unwrap(cursor, "history cursor", "h1", 3);
  if (!fields.ok()) return fields.status();
  uint64_t seq = 0;
  uint32_t checksum = 0;
  if (!absl::SimpleAtoi((*fields)[1], &seq) || (*fields)[2].size() != 8 ||
      !absl::SimpleHexAtoi((*fields)[2], &checksum)) {
    return absl::InvalidArgumentError(absl::StrCat("malformed history cursor ", Quote(cursor)));
  }
  if (checksum != Checksum(session_id)) {
    return absl::InvalidArgumentError(
        absl::StrCat("history cursor ", Quote(cursor),
                     " belongs to another session than ", session_id));
  }
  // Stored seqs are SQLite integers: no cursor of the store's goes past
  // them, and one that did could only be clamped, to a page that repeats.
  if (seq > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(absl::StrCat("history cursor ", Quote(cursor), " names seq ",
                                                   seq, ", beyond any stored seq"));
  }
  return seq;
}

std::string EncodeSessionPageToken(const SessionListPosition& position) {
  return absl::WebSafeBase64Escape(
      absl::StrCat("s1:", position.last_activity_unix_ms, ":", position.id));
}

absl::StatusOr<SessionListPosition> DecodeSessionPageToken(const std::string& token) {
  absl::StatusOr<std::vector<std::string>> fields = Unwrap(token, "page token", "s1", 3);
  if (!fields.ok()) return fields.status();
  SessionListPosition position;
  if (!absl::SimpleAtoi((*fields)[1], &position.last_activity_unix_ms) || (*fields)[2].empty()) {
    return absl::InvalidArgumentError(absl::StrCat("malformed page token ", Quote(token)));
  }
  position.id = (*fields)[2];
  return position;
}

}  // namespace raw::store
