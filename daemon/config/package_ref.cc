#include "daemon/config/package_ref.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "daemon/config/field_reader.h"

namespace raw::config {
namespace {

bool IsToolChar(char c) { return IsNameChar(c) || c == '*'; }

}  // namespace

std::string PackageRef::ExportId() const { return absl::StrCat("pkg/", alias, "/", kind, "/", name); }

bool IsPackageAlias(absl::string_view alias) {
  if (alias.empty() || alias.size() > 64) return false;
  unsigned char first = static_cast<unsigned char>(alias[0]);
  if (!absl::ascii_isdigit(first) && !absl::ascii_islower(first)) return false;
  return std::all_of(alias.begin(), alias.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c)) ||
           absl::ascii_islower(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

bool IsPackageRef(absl::string_view text) { return absl::StartsWith(text, "pkg/"); }

absl::StatusOr<PackageRef> ParsePackageRef(absl::string_view text, absl::string_view kind,
                                           bool with_tool) {
  std::string form = with_tool ? absl::StrCat("pkg/<alias>/", kind, "/<name>/<tool or glob>")
                               : absl::StrCat("pkg/<alias>/", kind, "/<name>");
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" ", why, " (expected ", form, ")"));
  };
  std::vector<absl::string_view> parts = absl::StrSplit(text, '/');
  const size_t want = with_tool ? 5 : 4;
  if (parts.size() != want || parts[0] != "pkg") return bad("is not a package reference");
  if (!IsPackageAlias(parts[1])) {
    return bad("has an invalid alias (lowercase letters, digits, '_', '.' and '-')");
  }
  if (parts[2] != kind) {
    return bad(absl::StrCat("names export kind \"", parts[2], "\" where \"", kind,
                            "\" is expected"));
  }
  if (parts[3].empty() || !std::all_of(parts[3].begin(), parts[3].end(), IsNameChar)) {
    return bad("has an invalid export name (letters, digits, '_', '.' and '-')");
  }
  PackageRef ref{std::string(parts[1]), std::string(parts[2]), std::string(parts[3]), ""};
  if (with_tool) {
    if (parts[4].empty() || !std::all_of(parts[4].begin(), parts[4].end(), IsToolChar)) {
      return bad("has an invalid tool name or glob (letters, digits, '_', '.', '-' or '*')");
    }
    ref.tool = std::string(parts[4]);
  }
  return ref;
}

}  // namespace raw::config
