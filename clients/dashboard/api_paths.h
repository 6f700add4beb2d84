// The parameterized paths of the dashboard API, parsed. Pure functions.
//
//   /api/sessions/ID          ->  {ID, ""}
//   /api/sessions/ID/history  ->  {ID, "history"}   (also "stats", "live")
//   /api/plugins/NAMESPACE    ->  NAMESPACE
//
// An id or namespace is non-empty and has no '/'; anything else (an extra
// segment, an empty id) is nullopt, which the routes answer with 404.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::dashboard {

struct SessionPath {
  std::string id;
  std::string rest;  // "", "history", "stats" or "live"
};

std::optional<SessionPath> ParseSessionPath(std::string_view path);
std::optional<std::string> ParsePluginPath(std::string_view path);

// The integer query parameter `name`, or `fallback` when absent;
// INVALID_ARGUMENT naming it when it is not a non-negative integer.
absl::StatusOr<int64_t> QueryInt(const std::map<std::string, std::string>& query,
                                 const std::string& name, int64_t fallback);

// The boolean query parameter `name` ("true" or "false"), or `fallback`
// when absent; INVALID_ARGUMENT naming it for any other value.
absl::StatusOr<bool> QueryBool(const std::map<std::string, std::string>& query,
                               const std::string& name, bool fallback);

}  // namespace raw::dashboard
