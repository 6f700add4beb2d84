// The session configuration options raw-acp offers (session/new, load,
// resume and set_config_option answer with all of them):
//
//   agent   select   the configured agents; changing it is refused by
//                    rawd once the session has a conversation
//   model   select   category "model": the configured model entries
//   mode    select   category "mode": the approval mode (session_modes.h),
//                    the same choice as session/set_mode
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {

// `mode`: the session's current approval mode.
Json ConfigOptions(const v1::Session& session, const std::vector<v1::AgentInfo>& agents,
                   const std::vector<v1::ModelInfo>& models, const std::string& mode);

// What ConfigureRequest reads of session/set_config_option's params:
// {configId, value} when they are strings (a configId of another type is
// left out: no option has it). Taken out before the connection waits on
// rawd, so that nothing else the client sent is kept meanwhile.
// INVALID_ARGUMENT when `value` is not a string, or either is longer than
// kMaxTokenBytes (request_params.h), longer than any option's id or value.
absl::StatusOr<Json> ConfigChoice(const Json& params);

// The ConfigureSession request for session/set_config_option's params
// (configId and value); INVALID_ARGUMENT for an unknown option or a value
// it does not offer.
absl::StatusOr<v1::ConfigureSessionRequest> ConfigureRequest(
    const Json& params, const std::vector<v1::AgentInfo>& agents,
    const std::vector<v1::ModelInfo>& models);

// promptCapabilities.image: whether prompts for new sessions of
// `agent_name` ("" = the default agent) may carry images. The agent's model
// entry says so; for an agent whose model is picked at session start, any
// model entry that takes images will do (rawd refuses images, with a clear
// error, for a session whose model turns out not to take them).
bool AgentTakesImages(const std::vector<v1::AgentInfo>& agents,
                      const std::vector<v1::ModelInfo>& models, const std::string& agent_name);

}  // namespace raw::acp
