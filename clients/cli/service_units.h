// The systemd user units that run rawd, as `raw daemon install-service`
// writes them (packaging/systemd/ holds the same units for system-wide
// installs, with rawd found on the search path).
//
// rawd.service runs `rawd --foreground` on the usual socket path
// (%t/raw/rawd.sock, i.e. $XDG_RUNTIME_DIR/raw/rawd.sock) and logs to the
// journal. With socket activation, rawd.socket owns the listening socket:
// the first connection starts the service, which exits after
// `idle_exit_seconds` without sessions or clients and is started again by
// the next connection. Pure functions; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace raw::cli {

// The first line of every unit Raw writes: files without it are not Raw's
// to replace or remove.
inline constexpr char kUnitMarker[] = "# Written by `raw daemon install-service`.";

struct ServiceUnitOptions {
  std::string rawd_path;  // absolute, or a bare name looked up by systemd
  bool socket_activated = false;
  int idle_exit_seconds = 900;  // used only when socket_activated
};

// `path` as the program of an ExecStart= line that systemd reads back as
// exactly `path`: as is when it holds only letters, digits and "/._-+,:="
// "@" and does not start with a command prefix ("@-:+"); otherwise in double
// quotes. Every `%` is doubled (else a specifier such as %h); `$` stays (a
// program's path is not searched for variables). systemd accepts no quote,
// backslash or control character in a program's path: such a path is
// kInvalidArgument saying so.
absl::StatusOr<std::string> SystemdExecutable(const std::string& path);

// ExecStart names `options.rawd_path` through SystemdExecutable, so a path
// with spaces or `%` runs that very file; its errors are returned.
absl::StatusOr<std::string> RawdServiceUnit(const ServiceUnitOptions& options);
std::string RawdSocketUnit();

}  // namespace raw::cli
