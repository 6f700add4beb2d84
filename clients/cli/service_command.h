// `raw daemon install-service [--socket-activated]` and
// `raw daemon uninstall-service`: the systemd user units that run rawd
// (service_units.h), written to $XDG_CONFIG_HOME/systemd/user/ (by default
// ~/.config/systemd/user/).
//
// Install writes rawd.service (and rawd.socket with --socket-activated;
// without it, a rawd.socket written earlier is removed), with ExecStart
// naming the rawd that `raw` itself would start, then runs
// `systemctl --user daemon-reload` and says how to enable the units.
// Uninstall disables and stops them (`systemctl --user disable --now`),
// removes them and reloads. Only files that carry Raw's marker line are
// replaced or removed; another file of the same name is left alone and
// reported. Each file is written atomically (a temporary file renamed).
#pragma once

#include "clients/cli/cli_context.h"

namespace raw::cli {

int InstallService(bool socket_activated, CliContext& ctx);
int UninstallService(CliContext& ctx);

}  // namespace raw::cli
