// raw-acp's command line.
//
//   raw-acp [--agent NAME] [--socket PATH] [--max-message-bytes N]
//           [--listen 127.0.0.1:PORT] [--help] [--version]
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::acp {

struct AcpArgs {
  std::string agent;
  std::string socket;
  size_t max_message_bytes = 0;  // 0: the default
  std::string listen;            // empty: stdio
  bool help = false;
  bool version = false;
};

// `args` without the program name. INVALID_ARGUMENT names what is wrong.
absl::StatusOr<AcpArgs> ParseAcpArgs(const std::vector<std::string>& args);

extern const char kAcpUsage[];

}  // namespace raw::acp
