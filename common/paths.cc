#include "common/paths.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw {

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
  };
}

namespace {

constexpr char kSocketName[] = "rawd.sock";

absl::StatusOr<std::string> XdgDir(const EnvLookup& env, const char* var, const char* home_rel) {
  if (auto v = env(var); v && !v->empty() && (*v)[0] == '/') return *v;
  auto home = env("HOME");
  if (!home) {
    return absl::FailedPreconditionError(
        absl::StrCat("neither ", var, " nor HOME is set; cannot place Raw's files"));
  }
  return absl::StrCat(*home, "/", home_rel);
}

}  // namespace

std::string ResolveRuntimeDir(const EnvLookup& env) {
  if (auto v = env("XDG_RUNTIME_DIR"); v && !v->empty() && (*v)[0] == '/') {
    return absl::StrCat(*v, "/raw");
  }
  // A directory of the user's own, which no other user can make first (as
  // one can /tmp/raw-$UID), when the socket's path there fits a Unix
  // socket address.
  if (absl::StatusOr<std::string> state = XdgDir(env, "XDG_STATE_HOME", ".local/state");
      state.ok() && !state->empty() && (*state)[0] == '/') {
    std::string dir = absl::StrCat(*state, "/raw/run");
    if (absl::StrCat(dir, "/", kSocketName).size() < sizeof(sockaddr_un{}.sun_path)) return dir;
  }
  return LastResortRuntimeDir();
}

std::string LastResortRuntimeDir() { return absl::StrCat("/tmp/raw-", getuid()); }

std::string ResolveSocketPath(const EnvLookup& env) {
  if (auto v = env("RAW_SOCKET")) return *v;
  return absl::StrCat(ResolveRuntimeDir(env), "/", kSocketName);
}

absl::StatusOr<RawPaths> ResolvePaths(const EnvLookup& env) {
  RawPaths p;
  auto config = XdgDir(env, "XDG_CONFIG_HOME", ".config");
  if (!config.ok()) return config.status();
  auto state = XdgDir(env, "XDG_STATE_HOME", ".local/state");
  if (!state.ok()) return state.status();
  auto data = XdgDir(env, "XDG_DATA_HOME", ".local/share");
  if (!data.ok()) return data.status();
  p.config_file = absl::StrCat(*config, "/raw/config.json");
  p.state_dir = absl::StrCat(*state, "/raw");
  p.data_dir = absl::StrCat(*data, "/raw");
  p.socket_path = ResolveSocketPath(env);
  return p;
}

absl::Status EnsureDir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return absl::OkStatus();
  std::string parent = Dirname(dir);
  if (parent != dir && !parent.empty()) {
    if (auto s = EnsureDir(parent); !s.ok()) return s;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create directory ", dir, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status EnsurePrivateDir(const std::string& dir) {
  std::string parent = Dirname(dir);
  if (parent != dir && !parent.empty()) {
    if (auto s = EnsureDir(parent); !s.ok()) return s;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create socket directory ", dir, ": ", std::strerror(errno)));
  }
  return CheckPrivateDir(dir);
}

absl::Status CheckPrivateDir(const std::string& dir) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(dir, " does not exist"));
    return absl::PermissionDeniedError(
        absl::StrCat("cannot inspect socket directory ", dir, ": ", std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(
        "socket directory ", dir, " is not a directory (symlinks are refused); remove it (",
        "rm ", dir, ") or set RAW_SOCKET to a path in a private directory you own"));
  }
  if (st.st_uid != getuid()) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "socket directory %s is owned by uid %d, not by you (uid %d); refusing to use it. "
        "Remove it (another user may have prepared it: rm -r %s as its owner or root) or set "
        "RAW_SOCKET to a path in a directory you own",
        dir, st.st_uid, getuid(), dir));
  }
  if ((st.st_mode & 0022) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "other users can write to socket directory %s (mode %04o), so they could replace a "
        "socket there; use a socket path in a private directory (mode 0700), or leave "
        "--socket and RAW_SOCKET unset",
        dir, st.st_mode & 07777));
  }
  if ((st.st_mode & 077) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "socket directory %s has mode %04o; it must be 0700 (only you may enter it). "
        "Run: chmod 700 %s",
        dir, st.st_mode & 07777, dir));
  }
  return absl::OkStatus();
}

std::string Dirname(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string AbsolutePath(const std::string& path, const std::string& base) {
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(base) / p;
  return p.lexically_normal().string();
}

}  // namespace raw
