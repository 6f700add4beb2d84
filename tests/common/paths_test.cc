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
