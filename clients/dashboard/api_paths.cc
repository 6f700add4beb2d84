#include "clients/dashboard/api_paths.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace raw::dashboard {
namespace {

constexpr std::string_view kSessions = "/api/sessions/";
constexpr std::string_view kPlugins = "/api/plugins/";

}  // namespace

std::optional<SessionPath> ParseSessionPath(std::string_view path) {
  if (!path.starts_with(kSessions)) return std::nullopt;
  std::string_view rest = path.substr(kSessions.size());
  SessionPath out;
  const size_t slash = rest.find('/');
  out.id = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) out.rest = std::string(rest.substr(slash + 1));
  if (out.id.empty()) return std::nullopt;
  if (slash != std::string_view::npos && out.rest != "history" && out.rest != "stats" &&
      out.rest != "live") {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> ParsePluginPath(std::string_view path) {
  if (!path.starts_with(kPlugins)) return std::nullopt;
  std::string_view ns = path.substr(kPlugins.size());
  if (ns.empty() || ns.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(ns);
}

absl::StatusOr<int64_t> QueryInt(const std::map<std::string, std::string>& query,
                                 const std::string& name, int64_t fallback) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("query parameter ", name, " must be a non-negative integer, not '",
                     it->second, "'"));
  }
  return value;
}

absl::StatusOr<bool> QueryBool(const std::map<std::string, std::string>& query,
                               const std::string& name, bool fallback) {
  auto it = query.find(name);
  if (it == query.end() || it->second.empty()) return fallback;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("query parameter ", name, " must be true or false, not '", it->second, "'"));
}

}  // namespace raw::dashboard
