#include "clients/cli/service_units.h"

#include "absl/strings/str_cat.h"

namespace raw::cli {

std::string RawdServiceUnit(const ServiceUnitOptions& options) {
  std::string exec = absl::StrCat(options.rawd_path, " --foreground --socket %t/raw/rawd.sock");
  if (options.socket_activated && options.idle_exit_seconds > 0) {
    absl::StrAppend(&exec, " --idle-exit ", options.idle_exit_seconds);
  }
  return absl::StrCat(
      kUnitMarker, "\n",
      "# rawd, the Raw daemon, as a systemd user service. See `raw daemon --help`.\n"
      "[Unit]\n"
      "Description=Raw coding-agent daemon\n",
      options.socket_activated ? "Requires=rawd.socket\nAfter=rawd.socket\n" : "",
      "\n"
      "[Service]\n"
      "Type=exec\n"
      "# Provider API keys are read from the environment variables the config\n"
      "# names; a user service does not see the login shell's variables.\n"
      "EnvironmentFile=-%h/.config/raw/rawd.env\n"
      "ExecStart=", exec, "\n",
      "Restart=on-failure\n"
      "RestartSec=2s\n"
      "# SIGTERM goes to rawd alone: it interrupts running turns, lets them\n"
      "# record their end and stops the processes it started.\n"
      "KillMode=mixed\n"
      "TimeoutStopSec=30s\n",
      options.socket_activated ? ""
                               : "\n"
                                 "[Install]\n"
                                 "WantedBy=default.target\n");
}

std::string RawdSocketUnit() {
  return absl::StrCat(kUnitMarker, "\n",
                      "# Socket activation for rawd: systemd listens on the daemon's socket\n"
                      "# and starts rawd.service on the first connection.\n"
                      "[Unit]\n"
                      "Description=Raw coding-agent daemon socket\n"
                      "\n"
                      "[Socket]\n"
                      "ListenStream=%t/raw/rawd.sock\n"
                      "# The modes rawd and its clients insist on.\n"
                      "DirectoryMode=0700\n"
                      "SocketMode=0600\n"
                      "Service=rawd.service\n"
                      "\n"
                      "[Install]\n"
                      "WantedBy=sockets.target\n");
}

}  // namespace raw::cli
