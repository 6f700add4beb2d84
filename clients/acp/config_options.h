// The session configuration options raw-acp offers (session/new, load,
// resume and set_config_option answer with all of them):
//
//   agent   select   the configured agents; changing it is refused by
//                    rawd once the session has a conversation
//   model   select   category "model": the configured model entries
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {

Json ConfigOptions(const v1::Session& session, const std::vector<v1::AgentInfo>& agents,
                   const std::vector<v1::ModelInfo>& models);

// The ConfigureSession request for session/set_config_option's params
// (configId and value); INVALID_ARGUMENT for an unknown option or a value
// it does not offer.
absl::StatusOr<v1::ConfigureSessionRequest> ConfigureRequest(
    const Json& params, const std::vector<v1::AgentInfo>& agents,
    const std::vector<v1::ModelInfo>& models);

}  // namespace raw::acp
