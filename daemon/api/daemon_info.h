// DaemonInfo: the facts about the running daemon that GetDaemonInfo
// reports. Filled once by the composition root before the server starts;
// immutable afterwards (safe to read from any thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace raw::api {

struct DaemonInfo {
  std::string version;       // common/version.h kVersion
  int protocol_version = 0;  // common/version.h kProtocolVersion
  int64_t pid = 0;
  std::string config_path;
  std::string state_dir;
  std::string socket_path;
  std::string database_path;
  std::string log_path;
  int64_t started_at_unix_ms = 0;
  // Start-up problems for `raw daemon status` (app/dir_permissions.h).
  std::vector<std::string> warnings;
};

}  // namespace raw::api
