// The ACP session modes raw-acp offers: Raw's approval modes (tools.md),
// chosen per session through ConfigureSession's approval_mode.
//
//   default    read-only tools run, the others ask
//   ask_all    every call asks
//   allow_all  calls no rule matched run without asking
//   deny_all   calls no rule matched are denied
//
// A mode only decides calls that no rule matched: deny and ask rules, the
// protected paths and an agent configured deny_all always win (the daemon
// enforces it). The same choice is the `mode` config option (category
// "mode"), kept in sync for clients that only know one of the two.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {

// SessionModeState: {currentModeId, availableModes}.
Json SessionModes(const std::string& current);

// The `mode` config option (a select, category "mode").
Json ModeConfigOption(const std::string& current);

// The mode id `value` when it is one raw-acp offers; INVALID_ARGUMENT
// naming the modes otherwise.
absl::StatusOr<std::string> CheckModeId(const Json& value);

// The approval mode the agent named `agent` is configured with ("default"
// when it is not listed).
std::string AgentMode(const std::vector<v1::AgentInfo>& agents, const std::string& agent);

}  // namespace raw::acp
