// raw-dashboard's command line (also `raw dashboard ...`).
//
//   raw-dashboard [--port N] [--open] [--socket PATH] [--help] [--version]
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::dashboard {

struct DashboardArgs {
  uint16_t port = 0;   // 0: a free port
  bool open = false;   // run xdg-open on the URL
  std::string socket;  // rawd's socket; empty: as `raw` finds it
  bool help = false;
  bool version = false;
};

// `args` without the program name. INVALID_ARGUMENT names what is wrong.
absl::StatusOr<DashboardArgs> ParseDashboardArgs(const std::vector<std::string>& args);

extern const char kDashboardUsage[];

}  // namespace raw::dashboard
