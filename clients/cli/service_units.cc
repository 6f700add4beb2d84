#include "clients/cli/service_units.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace raw::cli {

absl::StatusOr<std::string> SystemdExecutable(const std::string& path) {
  for (unsigned char c : path) {
    // systemd refuses these in an executable's name, quoted or not.
    if (c < 0x20 || c == 0x7f || c == '\\' || c == '"' || c == '\'') {
      return absl::InvalidArgumentError(absl::StrCat(
          "the path of rawd, ", path,
          ", holds a character systemd does not accept in a program's path (a quote, a "
          "backslash or a control character); install rawd elsewhere or name another one with "
          "RAW_DAEMON"));
    }
  }
  auto plain = [](unsigned char c) {
    return absl::ascii_isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' ||
           c == ',' || c == ':' || c == '=' || c == '@';
  };
  // A leading "@-:+" would be read as a prefix of the command ("-" = ignore
  // failure), not as part of its path.
  bool quote = path.empty() || absl::string_view("@-:+").find(path[0]) != absl::string_view::npos;
  for (unsigned char c : path) quote = quote || !plain(c);
  // The program's path is never searched for variables, so `$` stays as it
  // is; `%` would start a specifier (%h, %t) anywhere.
  std::string escaped = absl::StrReplaceAll(path, {{"%", "%%"}});
  return quote ? absl::StrCat("\"", escaped, "\"") : escaped;
}

absl::StatusOr<std::string> RawdServiceUnit(const ServiceUnitOptions& options) {
  absl::StatusOr<std::string> program = SystemdExecutable(options.rawd_path);
  if (!program.ok()) return program.status();
  std::string exec = absl::StrCat(*program, " --foreground --socket %t/raw/rawd.sock");
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
