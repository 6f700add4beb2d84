// DaemonOptions: rawd's command line, and the file locations it implies.
//
//   rawd [--socket PATH] [--config PATH] [--foreground] [--ready-fd N]
//        [--idle-exit SECONDS] [--help] [--version]
//
// Pure functions of argv and the environment lookup they are given;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/paths.h"

namespace raw::app {

struct DaemonOptions {
  std::string socket_path;  // --socket; "" = RAW_SOCKET, else the default
  std::string config_path;  // --config; "" = $XDG_CONFIG_HOME/raw/config.json
  bool foreground = false;  // --foreground: also log to stderr
  // --ready-fd: once the socket accepts connections, one byte 'R' is
  // written to this descriptor and it is closed. -1 = none.
  int ready_fd = -1;
  // --idle-exit: a socket-activated rawd exits once it has had no loaded
  // session and no open stream for this long; systemd starts it again on
  // the next connection. 0 = never. Ignored (with a warning) when rawd
  // bound its socket itself: nothing would start it again.
  int idle_exit_seconds = 0;
  // Not an option: the listening socket systemd passed (listen_fds.h), or
  // -1 to bind the socket path itself.
  int listen_fd = -1;
  bool help = false;
  bool version = false;
};

// Parses the arguments after argv[0]. Both "--socket PATH" and
// "--socket=PATH" are accepted. Unknown options, missing values and a
// malformed --ready-fd are kInvalidArgument naming the problem.
absl::StatusOr<DaemonOptions> ParseDaemonOptions(const std::vector<std::string>& args);

std::string DaemonUsage();

// Every file the daemon uses, as absolute paths.
struct DaemonPaths {
  std::string socket_path;
  std::string config_path;
  std::string state_dir;
  std::string lock_path;      // <state_dir>/rawd.lock
  std::string log_path;       // <state_dir>/rawd.log
  std::string database_path;  // <state_dir>/<store::DatabaseFileName()>
};

// A config file named with --config must exist (kNotFound naming it
// otherwise): a mistyped path must not start a daemon on the built-in
// defaults, which may pick a model the user never chose. Without --config
// the default file may be absent. `config_path` is the resolved path.
absl::Status CheckExplicitConfigExists(const DaemonOptions& options,
                                       const std::string& config_path);

// Relative --socket and --config paths are taken against `cwd`.
absl::StatusOr<DaemonPaths> ResolveDaemonPaths(const DaemonOptions& options, const EnvLookup& env,
                                               const std::string& cwd);

}  // namespace raw::app
