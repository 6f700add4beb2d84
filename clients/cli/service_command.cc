#include "clients/cli/service_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/service_units.h"
#include "clients/lib/daemon_launcher.h"
#include "common/paths.h"
#include "common/subprocess.h"

namespace raw::cli {
namespace {

constexpr char kServiceName[] = "rawd.service";
constexpr char kSocketName[] = "rawd.socket";

absl::StatusOr<std::string> UnitDir(const EnvLookup& env) {
  absl::StatusOr<RawPaths> paths = ResolvePaths(env);
  if (!paths.ok()) return paths.status();
  // config_file is <config home>/raw/config.json.
  return absl::StrCat(Dirname(Dirname(paths->config_file)), "/systemd/user");
}

enum class Existing { kNone, kOurs, kForeign };

Existing Inspect(const std::string& path) {
  std::ifstream in(path);
  if (!in) return access(path.c_str(), F_OK) == 0 ? Existing::kForeign : Existing::kNone;
  std::string first;
  std::getline(in, first);
  return first == kUnitMarker ? Existing::kOurs : Existing::kForeign;
}

absl::Status WriteAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string err = std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", err));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", err));
  }
  return absl::OkStatus();
}

// Runs `systemctl --user ARGS...`; "" on success, else what went wrong.
std::string Systemctl(const std::vector<std::string>& args) {
  SubprocessOptions options;
  options.argv = {"systemctl", "--user"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout_ms = 60000;
  CancelToken never;
  absl::StatusOr<SubprocessResult> result = RunSubprocess(options, never);
  const std::string command = absl::StrJoin(options.argv, " ");
  if (!result.ok()) return absl::StrCat(command, ": ", result.status().message());
  if (result->exit_code == 0) return "";
  std::string why = result->stderr_data;
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  if (why.empty()) why = result->exit_code ? absl::StrCat("exit status ", *result->exit_code) : "killed";
  return absl::StrCat(command, " failed: ", why);
}

}  // namespace

int InstallService(bool socket_activated, CliContext& ctx) {
  absl::StatusOr<std::string> dir = UnitDir(ctx.connect.env);
  if (!dir.ok()) {
    ctx.err << "raw daemon install-service: " << dir.status().message() << "\n";
    return kExitError;
  }
  absl::StatusOr<std::string> rawd = client::FindDaemonBinary(
      ctx.connect.env,
      ctx.connect.self_exe.empty() ? client::SelfExecutable() : ctx.connect.self_exe);
  if (!rawd.ok()) {
    ctx.err << "raw daemon install-service: " << rawd.status().message() << "\n";
    return kExitError;
  }
  const std::string service_path = absl::StrCat(*dir, "/", kServiceName);
  const std::string socket_path = absl::StrCat(*dir, "/", kSocketName);
  for (const std::string& path : {service_path, socket_path}) {
    if (Inspect(path) == Existing::kForeign) {
      ctx.err << "raw daemon install-service: " << path
              << " exists and was not written by raw; remove it or rename it first\n";
      return kExitError;
    }
  }
  ServiceUnitOptions options{.rawd_path = *rawd, .socket_activated = socket_activated};
  absl::StatusOr<std::string> service_unit = RawdServiceUnit(options);
  if (!service_unit.ok()) {
    ctx.err << "raw daemon install-service: " << service_unit.status().message() << "\n";
    return kExitError;
  }
  if (absl::Status s = EnsureDir(*dir); !s.ok()) {
    ctx.err << "raw daemon install-service: " << s.message() << "\n";
    return kExitError;
  }
  absl::Status written = WriteAtomically(service_path, *service_unit);
  if (written.ok() && socket_activated) written = WriteAtomically(socket_path, RawdSocketUnit());
  if (written.ok() && !socket_activated && Inspect(socket_path) == Existing::kOurs) {
    // The units no longer work together that way.
    Systemctl({"disable", "--now", kSocketName});
    unlink(socket_path.c_str());
  }
  if (!written.ok()) {
    ctx.err << "raw daemon install-service: " << written.message() << "\n";
    return kExitError;
  }
  ctx.out << "wrote " << service_path << "\n";
  if (socket_activated) ctx.out << "wrote " << socket_path << "\n";
  if (std::string failed = Systemctl({"daemon-reload"}); !failed.empty()) {
    ctx.err << "raw daemon install-service: the units are written, but " << failed
            << "\n(is a systemd user manager running for this user?)\n";
    return kExitError;
  }
  ctx.out << "systemd reloaded its units. To use them:\n"
          << "  raw daemon stop    # a rawd started by raw itself\n"
          << "  systemctl --user enable --now " << (socket_activated ? kSocketName : kServiceName)
          << "\n";
  return kExitOk;
}

int UninstallService(CliContext& ctx) {
  absl::StatusOr<std::string> dir = UnitDir(ctx.connect.env);
  if (!dir.ok()) {
    ctx.err << "raw daemon uninstall-service: " << dir.status().message() << "\n";
    return kExitError;
  }
  std::vector<std::string> ours;
  for (const char* name : {kSocketName, kServiceName}) {
    const std::string path = absl::StrCat(*dir, "/", name);
    switch (Inspect(path)) {
      case Existing::kNone:
        break;
      case Existing::kForeign:
        ctx.err << "raw daemon uninstall-service: leaving " << path
                << " alone: it was not written by raw\n";
        break;
      case Existing::kOurs:
        ours.push_back(name);
        break;
    }
  }
  if (ours.empty()) {
    ctx.out << "no rawd units written by raw in " << *dir << "\n";
    return kExitOk;
  }
  std::vector<std::string> disable = {"disable", "--now"};
  disable.insert(disable.end(), ours.begin(), ours.end());
  // Units that were never enabled or loaded make this fail; removing them
  // is what matters.
  if (std::string failed = Systemctl(disable); !failed.empty()) ctx.err << "note: " << failed << "\n";
  for (const std::string& name : ours) {
    const std::string path = absl::StrCat(*dir, "/", name);
    if (unlink(path.c_str()) != 0 && errno != ENOENT) {
      ctx.err << "raw daemon uninstall-service: cannot remove " << path << ": "
              << std::strerror(errno) << "\n";
      return kExitError;
    }
    ctx.out << "removed " << path << "\n";
  }
  if (std::string failed = Systemctl({"daemon-reload"}); !failed.empty()) {
    ctx.err << "raw daemon uninstall-service: " << failed << "\n";
    return kExitError;
  }
  return kExitOk;
}

}  // namespace raw::cli
