// ModelEntry: validation of one models.<name> object of config.json into a
// ModelConfig, filling the defaults of what it leaves out. Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"

namespace raw::config {

// Upper bound of every token count in the file (context windows, output
// caps, compaction thresholds): far above any real model, low enough to
// catch a stray digit.
inline constexpr int64_t kMaxTokenCount = 100'000'000;
// Upper bound of every timeout in the file, in seconds (one day).
inline constexpr int64_t kMaxTimeoutSeconds = 86'400;
// Bounds of models.<name>.max_response_bytes (1 KiB to 1 GiB).
inline constexpr int64_t kMinResponseBytes = 1024;
inline constexpr int64_t kMaxResponseBytes = int64_t{1} << 30;
// Upper bound of models.<name>.max_retries.
inline constexpr int64_t kMaxModelRetries = 10;
// models.<name>.reasoning_effort (openai-responses only; unset by default).
inline constexpr std::array<absl::string_view, 4> kReasoningEfforts = {"minimal", "low", "medium",
                                                                       "high"};

// Reads `value` found at `path` (e.g. "models.flash"). Records every problem
// in `problems` and returns what could be read; the result is meaningful only
// when no problem was added.
ModelConfig ParseModelEntry(const std::string& name, const Json& value, const std::string& path,
                            std::vector<ConfigProblem>& problems);

}  // namespace raw::config
