#include "clients/cli/daemon_command.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/json_line.h"
#include "clients/cli/service_command.h"
#include "clients/present/text.h"
#include "common/version.h"

namespace raw::cli {
namespace {

// How long `raw daemon stop` waits for the daemon to finish its shutdown
// (running turns are interrupted and record their end first).
constexpr absl::Duration kStopTimeout = absl::Seconds(30);

const std::vector<OptionSpec>& DaemonSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--config", OptionSpec::Kind::kValue, ""},
      {"--json", OptionSpec::Kind::kFlag, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--socket-activated", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

std::string PidAndSocket(const client::RawClient& client) {
  return absl::StrCat("pid ", client.daemon_info().pid(), ", socket ", client.socket_path());
}

int Start(const client::ConnectOptions& base, const std::string& config, CliContext& ctx) {
  client::ConnectOptions connect = base;
  connect.autostart = client::Autostart::kRequested;
  if (!config.empty()) connect.daemon_args = {"--config", config};
  auto client = client::Connect(connect);
  if (!client.ok()) {
    ctx.err << "raw daemon start: " << client.status().message() << "\n";
    return ExitCodeFor(client.status());
  }
  if (client->started_daemon()) {
    ctx.out << "rawd started (" << PidAndSocket(*client) << ")\n";
    return kExitOk;
  }
  ctx.out << "rawd is already running (" << PidAndSocket(*client) << ")\n";
  if (!config.empty() && client->daemon_info().config_path() != config) {
    ctx.err << "raw daemon start: note: it uses the config " << client->daemon_info().config_path()
            << ", not " << config << "; stop it first to use another config\n";
  }
  return kExitOk;
}

// Connects without starting anything: kUnavailable when no daemon runs.
absl::StatusOr<client::RawClient> ConnectExisting(const client::ConnectOptions& base) {
  client::ConnectOptions connect = base;
  connect.autostart = client::Autostart::kNever;
  // A daemon of another version can still be inspected and stopped.
  connect.version_check = client::VersionCheck::kReport;
  return client::Connect(connect);
}

int NotRunningOrError(const absl::Status& status, const client::ConnectOptions& connect,
                      const char* action, CliContext& ctx) {
  if (absl::IsUnavailable(status)) {
    ctx.out << "rawd is not running (socket " << client::SocketPathFor(connect) << ")\n";
    return kExitNotRunning;
  }
  ctx.err << "raw daemon " << action << ": " << status.message() << "\n";
  return ExitCodeFor(status);
}

int Status(const client::ConnectOptions& connect, bool json, CliContext& ctx) {
  auto client = ConnectExisting(connect);
  if (!client.ok()) return NotRunningOrError(client.status(), connect, "status", ctx);
  const auto& info = client->daemon_info();
  if (json) {
    auto line = ToJsonLine(info);
    if (!line.ok()) {
      ctx.err << "raw daemon status: " << line.status().message() << "\n";
      return kExitError;
    }
    ctx.out << *line << "\n";
    return kExitOk;
  }
  ctx.out << "rawd is running\n";
  ctx.out << "  pid        " << info.pid() << "\n";
  ctx.out << "  version    " << info.version() << " (protocol " << info.protocol_version();
  if (info.protocol_version() != kProtocolVersion) {
    ctx.out << "; this raw speaks protocol " << kProtocolVersion << ": stop and restart it";
  } else if (info.version() != kVersion) {
    // An upgrade that kept the protocol leaves the old daemon running.
    ctx.out << "; this raw is " << kVersion << ": raw daemon stop starts a matching one";
  }
  ctx.out << ")\n";
  ctx.out << "  started    " << present::FormatLocalTime(info.started_at_unix_ms()) << "\n";
  ctx.out << "  socket     " << client->socket_path() << "\n";
  ctx.out << "  config     " << info.config_path() << "\n";
  ctx.out << "  state dir  " << info.state_dir() << "\n";
  if (!info.database_path().empty()) ctx.out << "  database   " << info.database_path() << "\n";
  if (!info.log_path().empty()) ctx.out << "  log        " << info.log_path() << "\n";
  for (const std::string& warning : info.warnings()) ctx.out << "  warning    " << warning << "\n";
  return kExitOk;
}

// Blocks until the process behind `pidfd` exits (pidfd becomes readable), or
// until `deadline`. A pidfd refers to that exact process, so pid reuse
// cannot confuse it.
bool WaitForExit(int pidfd, absl::Time deadline) {
  for (;;) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    pollfd fd = {pidfd, POLLIN, 0};
    int n = poll(&fd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

int Stop(const client::ConnectOptions& connect, CliContext& ctx) {
  auto client = ConnectExisting(connect);
  if (!client.ok()) return NotRunningOrError(client.status(), connect, "stop", ctx);
  const int64_t pid = client->daemon_info().pid();
  // Opened before Shutdown, while the process certainly is the daemon.
  // (glibc 2.36's <sys/pidfd.h> lacks C linkage for pidfd_open, so the
  // system call is made directly.)
  int pidfd = pid > 0 ? static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0)) : -1;
  const absl::Time deadline = absl::Now() + kStopTimeout;
  auto shutdown = client->Shutdown(v1::ShutdownRequest());
  // A daemon may close the connection, or cancel the call, while it
  // answers; either way it is going down.
  if (!shutdown.ok() && !absl::IsUnavailable(shutdown.status()) &&
      !absl::IsCancelled(shutdown.status())) {
    if (pidfd >= 0) close(pidfd);
    ctx.err << "raw daemon stop: " << shutdown.status().message() << "\n";
    return ExitCodeFor(shutdown.status());
  }
  absl::Status gone = client->WaitUntilUnreachable(deadline - absl::Now());
  bool exited = gone.ok() && (pidfd < 0 || WaitForExit(pidfd, deadline));
  if (pidfd >= 0) close(pidfd);
  if (!gone.ok()) {
    ctx.err << "raw daemon stop: " << gone.message() << "\n";
    return kExitError;
  }
  if (!exited) {
    ctx.err << "raw daemon stop: rawd (pid " << pid << ") stopped accepting connections but is "
            << "still running after " << absl::FormatDuration(kStopTimeout) << "\n";
    return kExitError;
  }
  ctx.out << "rawd stopped (pid " << pid << ")\n";
  return kExitOk;
}

}  // namespace

const char kDaemonUsage[] =
    "usage: raw daemon start [--config PATH]\n"
    "       raw daemon status [--json]\n"
    "       raw daemon stop\n"
    "       raw daemon install-service [--socket-activated]\n"
    "       raw daemon uninstall-service\n"
    "\n"
    "start   start rawd unless it is running (even when RAW_NO_AUTOSTART is set)\n"
    "status  pid, version, socket, state directory and config of the running rawd\n"
    "stop    ask rawd to shut down and wait until it has exited\n"
    "install-service\n"
    "        write the systemd user unit rawd.service (and rawd.socket with\n"
    "        --socket-activated: systemd then starts rawd on the first connection\n"
    "        and rawd exits after 15 idle minutes) to ~/.config/systemd/user/\n"
    "        and reload systemd\n"
    "uninstall-service\n"
    "        disable, stop and remove the units install-service wrote\n"
    "status and stop never start a daemon; with none running they print\n"
    "\"rawd is not running\" and exit with status 3.\n"
    "\n"
    "options:\n"
    "  --config PATH   (start) config file for the new daemon\n"
    "  --json          (status) print the daemon information as one JSON object\n"
    "  --socket-activated  (install-service) also write rawd.socket\n"
    "  --socket PATH   daemon socket\n";

int DaemonCommand(const std::vector<std::string>& args, CliContext& ctx) {
  auto parsed = ParseArgs(args, DaemonSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw daemon: " << parsed.status().message() << "\n"
            << "Run 'raw daemon --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--help")) {
    ctx.out << kDaemonUsage;
    return kExitOk;
  }
  const auto& pos = parsed->positionals;
  std::string action = pos.empty() ? "" : pos[0];
  if (action != "start" && action != "status" && action != "stop" &&
      action != "install-service" && action != "uninstall-service") {
    ctx.err << (action.empty()
                    ? std::string("raw daemon: which action? start, status, stop, "
                                  "install-service or uninstall-service")
                    : absl::StrCat("raw daemon: unknown action '", action,
                                   "' (expected start, status, stop, install-service or "
                                   "uninstall-service)"))
            << "\n"
            << "Run 'raw daemon --help' for usage.\n";
    return kExitUsage;
  }
  if (pos.size() > 1) {
    ctx.err << "raw daemon " << action << ": unexpected argument '" << pos[1] << "'\n";
    return kExitUsage;
  }
  auto config = parsed->Value("--config");
  if (config && action != "start") {
    ctx.err << "raw daemon " << action << ": --config applies to start only\n";
    return kExitUsage;
  }
  if (parsed->Has("--json") && action != "status") {
    ctx.err << "raw daemon " << action << ": --json applies to status only\n";
    return kExitUsage;
  }
  if (parsed->Has("--socket-activated") && action != "install-service") {
    ctx.err << "raw daemon " << action << ": --socket-activated applies to install-service only\n";
    return kExitUsage;
  }
  if (action == "install-service") return InstallService(parsed->Has("--socket-activated"), ctx);
  if (action == "uninstall-service") return UninstallService(ctx);
  client::ConnectOptions connect = ctx.connect;
  if (auto socket = parsed->Value("--socket")) connect.socket_path = *socket;
  if (action == "start") {
    return Start(connect, config ? AbsolutePath(*config, ctx.cwd) : "", ctx);
  }
  if (action == "status") return Status(connect, parsed->Has("--json"), ctx);
  return Stop(connect, ctx);
}

const std::vector<OptionSpec>& DaemonOptionSpecs() { return DaemonSpecs(); }

}  // namespace raw::cli
