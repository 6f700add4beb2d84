// Where Raw keeps its files, from the XDG base-directory variables, and the
// daemon socket location. Shared by the daemon and its clients so that both
// agree without talking.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace raw {

// Looks up an environment variable; returns nullopt when unset or empty.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
EnvLookup ProcessEnv();

struct RawPaths {
  std::string config_file;  // $XDG_CONFIG_HOME/raw/config.json
  std::string state_dir;    // $XDG_STATE_HOME/raw
  std::string data_dir;     // $XDG_DATA_HOME/raw
  std::string socket_path;  // see ResolveSocketPath
};

// Resolves every path. Fails only when neither the XDG variable nor HOME is
// set for a directory that needs one.
absl::StatusOr<RawPaths> ResolvePaths(const EnvLookup& env);

// Raw's private runtime directory: $XDG_RUNTIME_DIR/raw (an absolute
// XDG_RUNTIME_DIR only); else $XDG_STATE_HOME/raw/run (or
// $HOME/.local/state/raw/run), a directory under the user's own, when
// that path is absolute and the socket's path in it fits a Unix socket
// address (107 bytes); else, the last resort, LastResortRuntimeDir(). It
// holds the default daemon socket and files of the login session such as
// raw-dashboard's --open page. The daemon and every client resolve it here,
// from the same variables, so they agree.
std::string ResolveRuntimeDir(const EnvLookup& env);

// /tmp/raw-$UID: a name any other user could make first (they would then
// keep Raw from starting: its owner is checked), so used only when the
// environment names no directory of the user's that fits.
std::string LastResortRuntimeDir();

// Socket path: RAW_SOCKET if set, else ResolveRuntimeDir(env)/rawd.sock.
std::string ResolveSocketPath(const EnvLookup& env);

// Creates `dir` (and missing parents of it with mode 0700) as a private
// directory: mode 0700, owned by the current user. An existing directory that
// is owned by someone else, or that group or others can access, is refused
// with a message that says what is wrong and how to fix it; it is never
// chmod-ed silently, since another user could have prepared it.
absl::Status EnsurePrivateDir(const std::string& dir);

// The checks of EnsurePrivateDir on an existing `dir`, without creating or
// changing anything: lstat(2) shows a directory (not a symlink), owned by
// the current user, with no group or other permission bits. kNotFound when
// it does not exist; kPermissionDenied, saying what to remove or change,
// otherwise.
absl::Status CheckPrivateDir(const std::string& dir);

// Creates `dir` and its parents (mode 0700 for created ones) without
// checking ownership; for config/state/data directories.
absl::Status EnsureDir(const std::string& dir);

std::string Dirname(const std::string& path);

// Makes `path` absolute against `base` (when relative) and normalizes "." and
// ".." lexically.
std::string AbsolutePath(const std::string& path, const std::string& base);

}  // namespace raw
