// VariableEntry: the top-level "variables" map of config.json (where each
// variable's value comes from) and the checks of the values that reference
// variables as ${NAME}. Values themselves are read by daemon/vars, never
// here. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

// Upper bound of variables.<NAME>.timeout_seconds.
inline constexpr int64_t kMaxVariableTimeoutSeconds = 600;

// Reads "variables" into config.variables. Names of entries that had
// problems go to `broken`, so that references to them are not reported
// again as undefined.
void ReadVariables(FieldReader& doc, const ParseContext& context, Config& config,
                   std::set<std::string>& broken, std::vector<ConfigProblem>& problems);

// Every reference in models.<n>.{api_key, headers.<h>} and
// mcp_servers.<n>.{env.<k>, headers.<h>} is well-formed and names a defined
// variable; each problem is recorded at the value's path.
void CheckVariableReferences(const Config& config, const std::set<std::string>& broken,
                             std::vector<ConfigProblem>& problems);

}  // namespace raw::config
