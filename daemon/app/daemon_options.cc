#include "daemon/app/daemon_options.h"

#include <sys/stat.h>

#include <cerrno>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "daemon/store/session_store.h"

namespace raw::app {
namespace {

// Splits "--name=value" into name and value; "--name" has no value.
struct Arg {
  std::string name;
  std::optional<std::string> value;
};

Arg SplitArg(const std::string& arg) {
  auto eq = arg.find('=');
  if (!absl::StartsWith(arg, "--") || eq == std::string::npos) return {arg, std::nullopt};
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

}  // namespace

absl::StatusOr<DaemonOptions> ParseDaemonOptions(const std::vector<std::string>& args) {
  DaemonOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    Arg arg = SplitArg(args[i]);
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (arg.value) return *arg.value;
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(arg.name, " needs a value"));
      }
      return args[++i];
    };
    auto flag = [&](bool* out) -> absl::Status {
      if (arg.value) {
        return absl::InvalidArgumentError(absl::StrCat(arg.name, " takes no value"));
      }
      *out = true;
      return absl::OkStatus();
    };
    absl::Status status;
    if (arg.name == "--socket" || arg.name == "--config") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(arg.name, " needs a path"));
      (arg.name == "--socket" ? options.socket_path : options.config_path) = *v;
    } else if (arg.name == "--ready-fd") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      int fd = -1;
      if (!absl::SimpleAtoi(*v, &fd) || fd < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--ready-fd needs a file descriptor number, got \"", *v, "\""));
      }
      options.ready_fd = fd;
    } else if (arg.name == "--idle-exit") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      int seconds = 0;
      if (!absl::SimpleAtoi(*v, &seconds) || seconds < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--idle-exit needs a number of seconds, got \"", *v, "\""));
      }
      options.idle_exit_seconds = seconds;
    } else if (arg.name == "--foreground") {
      status = flag(&options.foreground);
    } else if (arg.name == "--help" || arg.name == "-h") {
      status = flag(&options.help);
    } else if (arg.name == "--version") {
      status = flag(&options.version);
    } else if (absl::StartsWith(arg.name, "-")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", arg.name));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument \"", arg.name, "\" (rawd takes only options)"));
    }
    if (!status.ok()) return status;
  }
  return options;
}

std::string DaemonUsage() {
  return "Usage: rawd [options]\n"
         "\n"
         "The Raw daemon: runs every agent session and serves the Raw API on a\n"
         "Unix socket that only the same user can connect to.\n"
         "\n"
         "Options:\n"
         "  --socket PATH   listen on PATH (default: $RAW_SOCKET, else\n"
         "                  $XDG_RUNTIME_DIR/raw/rawd.sock, else\n"
         "                  $XDG_STATE_HOME/raw/run/rawd.sock, else /tmp/raw-$UID/rawd.sock)\n"
         "  --config PATH   read the config from PATH, which must exist\n"
         "                  (default: $XDG_CONFIG_HOME/raw/config.json; without\n"
         "                  that file the built-in defaults apply)\n"
         "  --foreground    also log to stderr (the log file is <state dir>/rawd.log)\n"
         "  --ready-fd N    write 'R' to file descriptor N and close it once the\n"
         "                  socket accepts connections (it is closed without a byte\n"
         "                  if start-up fails)\n"
         "  --idle-exit S   when started by systemd's socket activation, exit after\n"
         "                  S seconds with no loaded session, no open stream and no\n"
         "                  background job left by a command (systemd starts rawd\n"
         "                  again on the next connection)\n"
         "  --help          show this help\n"
         "  --version       show the version\n"
         "\n"
         "Sessions are kept in $XDG_STATE_HOME/raw/. SIGTERM or SIGINT (or the\n"
         "Shutdown call) stops the daemon; running turns end as cancelled.\n"
         "SIGHUP reopens the log file.\n"
         "\n"
         "Socket activation: rawd takes the listening socket systemd passes\n"
         "(LISTEN_FDS, sd_listen_fds(3)) instead of binding its socket path; the\n"
         "socket must be bound at that path, mode 0600, in a private directory.\n";
}

absl::Status CheckExplicitConfigExists(const DaemonOptions& options,
                                       const std::string& config_path) {
  if (options.config_path.empty()) return absl::OkStatus();
  struct stat st;
  if (stat(config_path.c_str(), &st) == 0 || errno != ENOENT) return absl::OkStatus();
  return absl::NotFoundError(
      absl::StrCat("the config file ", config_path,
                   " (given with --config) does not exist; create it (raw config init --config ",
                   config_path, ") or leave out --config to use the default config file"));
}

absl::StatusOr<DaemonPaths> ResolveDaemonPaths(const DaemonOptions& options, const EnvLookup& env,
                                               const std::string& cwd) {
  absl::StatusOr<RawPaths> raw_paths = ResolvePaths(env);
  if (!raw_paths.ok()) return raw_paths.status();
  DaemonPaths paths;
  paths.socket_path = AbsolutePath(
      options.socket_path.empty() ? ResolveSocketPath(env) : options.socket_path, cwd);
  paths.config_path = AbsolutePath(
      options.config_path.empty() ? raw_paths->config_file : options.config_path, cwd);
  paths.state_dir = AbsolutePath(raw_paths->state_dir, cwd);
  paths.lock_path = absl::StrCat(paths.state_dir, "/rawd.lock");
  paths.log_path = absl::StrCat(paths.state_dir, "/rawd.log");
  paths.database_path = absl::StrCat(paths.state_dir, "/", store::DatabaseFileName());
  return paths;
}

}  // namespace raw::app
