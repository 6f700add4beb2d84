#include "clients/cli/service_units.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace raw::cli {
namespace {

std::string ReadUnitFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The unit as shipped in packaging/systemd/: the same text without the
// marker line.
std::string WithoutMarker(const std::string& unit) {
  const std::string marker = absl::StrCat(kUnitMarker, "\n");
  EXPECT_EQ(unit.rfind(marker, 0), 0u) << unit;
  return unit.substr(marker.size());
}

TEST(ServiceUnitsTest, ThePackagedUnitsAreTheOnesRawWrites) {
  EXPECT_EQ(ReadUnitFile(RAW_SOURCE_DIR "/packaging/systemd/rawd.service"),
            WithoutMarker(*RawdServiceUnit({.rawd_path = "rawd", .socket_activated = false})));
  EXPECT_EQ(ReadUnitFile(RAW_SOURCE_DIR "/packaging/systemd/rawd.socket"),
            WithoutMarker(RawdSocketUnit()));
}

TEST(ServiceUnitsTest, ASocketActivatedServiceExitsWhenIdleAndIsStartedOnlyThroughItsSocket) {
  const std::string unit = *RawdServiceUnit(
      {.rawd_path = "/opt/raw/bin/rawd", .socket_activated = true, .idle_exit_seconds = 600});
  EXPECT_NE(unit.find("ExecStart=/opt/raw/bin/rawd --foreground --socket %t/raw/rawd.sock "
                      "--idle-exit 600\n"),
            std::string::npos)
      << unit;
  EXPECT_NE(unit.find("Requires=rawd.socket\n"), std::string::npos);
  EXPECT_EQ(unit.find("[Install]"), std::string::npos) << "enabled through rawd.socket only";

  const std::string plain = *RawdServiceUnit({.rawd_path = "/opt/raw/bin/rawd"});
  EXPECT_EQ(plain.find("--idle-exit"), std::string::npos) << plain;
  EXPECT_NE(plain.find("WantedBy=default.target"), std::string::npos);
  EXPECT_NE(plain.find("KillMode=mixed"), std::string::npos);
}

TEST(ServiceUnitsTest, ARawdPathIsQuotedAndEscapedForSystemd) {
  EXPECT_EQ(*SystemdExecutable("/opt/raw/bin/rawd"), "/opt/raw/bin/rawd");
  EXPECT_EQ(*SystemdExecutable("rawd"), "rawd");
  EXPECT_EQ(*SystemdExecutable("/opt/my tools%1/rawd"), "\"/opt/my tools%%1/rawd\"");
  EXPECT_EQ(*SystemdExecutable("/h/$HOME/%h/rawd"), "\"/h/$HOME/%%h/rawd\"");
  EXPECT_EQ(*SystemdExecutable("-rawd"), "\"-rawd\"");
  for (const char* unusable : {"/a\"b/rawd", "/a\\b/rawd", "/a'b/rawd", "/a\tb/rawd"}) {
    absl::StatusOr<std::string> refused = SystemdExecutable(unusable);
    EXPECT_TRUE(absl::IsInvalidArgument(refused.status())) << unusable;
    EXPECT_NE(refused.status().message().find("systemd does not accept"), std::string::npos);
    EXPECT_FALSE(RawdServiceUnit({.rawd_path = unusable}).ok());
  }
  const std::string unit = *RawdServiceUnit({.rawd_path = "/opt/my tools%1/rawd"});
  EXPECT_NE(unit.find("ExecStart=\"/opt/my tools%%1/rawd\" --foreground --socket "
                      "%t/raw/rawd.sock\n"),
            std::string::npos)
      << unit;
}

TEST(ServiceUnitsTest, SystemdAcceptsEveryUnitRawWrites) {
  if (access("/usr/bin/systemd-analyze", X_OK) != 0) {
    GTEST_SKIP() << "systemd-analyze is not installed";
  }
  char tmpl[] = "/tmp/raw-units-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  // rawd at a path systemd would split (space) or expand (%h), linked to
  // the real one: verify fails when ExecStart does not name an executable.
  const std::string odd_dir = dir + "/my tools%h $HOME";
  ASSERT_EQ(mkdir(odd_dir.c_str(), 0755), 0);
  const std::string odd_rawd = odd_dir + "/rawd";
  ASSERT_EQ(symlink(RAW_BINARY_DIR "/bin/rawd", odd_rawd.c_str()), 0);
  const std::vector<std::pair<std::string, bool>> cases = {
      {RAW_BINARY_DIR "/bin/rawd", false}, {RAW_BINARY_DIR "/bin/rawd", true}, {odd_rawd, false}};
  for (const auto& [rawd, activated] : cases) {
    const std::string service = dir + "/rawd.service";
    const std::string socket = dir + "/rawd.socket";
    std::ofstream(service) << *RawdServiceUnit({.rawd_path = rawd, .socket_activated = activated});
    std::ofstream(socket) << RawdSocketUnit();
    // A unit with a fatal error (an unknown section, a bad ExecStart) makes
    // verify exit non-zero.
    const std::string command =
        absl::StrCat("systemd-analyze verify ", service, " ", socket, " 2>&1");
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char buf[512];
    while (size_t n = fread(buf, 1, sizeof(buf), pipe)) output.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << (activated ? "socket-activated: " : "plain: ") << output;
    unlink(service.c_str());
    unlink(socket.c_str());
  }
  unlink(odd_rawd.c_str());
  rmdir(odd_dir.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace raw::cli
