// RavenEntry: the `raven` section of config.json (raven_settings.h),
// validated field by field like every other section, each problem at its
// path ("raven.search.url: ..."). It is read after `models` and `variables`,
// which it refers to: every draft route names a defined model as
// "provider/model_id", and the brave backend's api_key_variable names a
// defined variable. Pure; thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/field_reader.h"

namespace raw::config {

// Reads "raven" into config.raven. `broken_variables` are variables whose
// entries had problems (not reported again as undefined).
void ReadRaven(FieldReader& doc, Config& config, const std::set<std::string>& broken_variables,
               std::vector<ConfigProblem>& problems);

// The entry of config.models a draft route names: the first (by name) whose
// provider label and model_id are the route's two halves, split at the
// first '/'. nullopt when none does or the route has no '/'.
std::optional<std::string> ModelForRoute(const Config& config, const std::string& route);

}  // namespace raw::config
