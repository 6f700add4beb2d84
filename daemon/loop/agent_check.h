// The config check's look at the agents: what each agent's turns would meet
// when they resolve its packages and load its skills (SessionManager::
// CheckConfig runs it once the config file itself is valid).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/config/config.h"
#include "daemon/packages/package_store.h"

namespace raw::loop {

// Appends to `errors` why an agent of `cfg` would not resolve (its package
// exports, as packages::ResolvePackages applies them, and its skill
// selection; a skill a package exports is found only once the package is
// resolved), and every skill folder the loading sets aside (a turn only
// fails for one it may mean). Every agent's packages are read from `store`
// through one packages::PackageLoader, so a store entry that many agents use
// (one preset they all extend) is read once per check, not once per agent.
// The entries are not hashed again (a turn does that, and `raw package
// verify`): the check reads only what the config needs. `store` an error:
// the store could not be located, which only an agent that uses a package
// reports.
void CheckAgents(const config::Config& cfg, absl::StatusOr<packages::PackageStore> store,
                 std::vector<std::string>& errors);

}  // namespace raw::loop
