// Where Raw's runtime files go: the runtime directory and the default
// socket inside it.
#include "common/paths.h"

#include <unistd.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

EnvLookup PathsEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ResolveRuntimeDir, IsXdgRuntimeDirRawElseTmpRawUid) {
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"XDG_RUNTIME_DIR", "/run/user/1000"}})),
            "/run/user/1000/raw");
  const std::string fallback = absl::StrCat("/tmp/raw-", getuid());
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({})), fallback);
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"XDG_RUNTIME_DIR", "relative/dir"}})), fallback);
}

// Without XDG_RUNTIME_DIR the runtime directory is one of the user's own
// (no other user can make it first, as they can /tmp/raw-$UID), when the
// socket's path in it fits sun_path; /tmp/raw-$UID is the last resort.
TEST(ResolveRuntimeDir, WithoutXdgRuntimeDirIsUnderTheUsersStateDirectory) {
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"HOME", "/home/ada"}})), "/home/ada/.local/state/raw/run");
  EXPECT_EQ(ResolveSocketPath(PathsEnv({{"HOME", "/home/ada"}})),
            "/home/ada/.local/state/raw/run/rawd.sock");
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"HOME", "/home/ada"}, {"XDG_STATE_HOME", "/st"}})),
            "/st/raw/run");
  EXPECT_EQ(
      ResolveRuntimeDir(PathsEnv({{"HOME", "/home/ada"}, {"XDG_RUNTIME_DIR", "relative/dir"}})),
      "/home/ada/.local/state/raw/run");
  EXPECT_EQ(ResolvePaths(PathsEnv({{"HOME", "/home/ada"}}))->socket_path,
            "/home/ada/.local/state/raw/run/rawd.sock");

  const std::string last_resort = absl::StrCat("/tmp/raw-", getuid());
  EXPECT_EQ(LastResortRuntimeDir(), last_resort);
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"HOME", "relative/home"}})), last_resort);
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"XDG_STATE_HOME", "relative/state"}})), last_resort);
  // sun_path holds 107 bytes and a NUL: ".../raw/run/rawd.sock" must fit.
  const std::string fits(107 - std::string("/raw/run/rawd.sock").size(), 's');
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"XDG_STATE_HOME", "/" + fits.substr(1)}})),
            "/" + fits.substr(1) + "/raw/run");
  EXPECT_EQ(ResolveRuntimeDir(PathsEnv({{"XDG_STATE_HOME", "/" + fits}})), last_resort);
}

TEST(ResolveSocketPath, IsRawSocketElseInTheRuntimeDir) {
  EXPECT_EQ(ResolveSocketPath(PathsEnv({{"XDG_RUNTIME_DIR", "/run/user/1000"}})),
            "/run/user/1000/raw/rawd.sock");
  EXPECT_EQ(ResolveSocketPath(PathsEnv({})), absl::StrCat("/tmp/raw-", getuid(), "/rawd.sock"));
  EXPECT_EQ(ResolveSocketPath(PathsEnv(
                {{"XDG_RUNTIME_DIR", "/run/user/1000"}, {"RAW_SOCKET", "/elsewhere/r.sock"}})),
            "/elsewhere/r.sock");
}

}  // namespace
}  // namespace raw
