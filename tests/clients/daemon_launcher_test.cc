#include "clients/lib/daemon_launcher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/clients/temp_dir.h"

namespace raw::client {
namespace {

using ::raw::testing::ReadFile;
using ::raw::testing::TempDir;
using ::raw::testing::WriteFile;

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

// A stand-in for rawd: a bash script that understands --socket and
// --ready-fd and then runs `body` (with $socket and $ready set).
std::string FakeDaemon(const TempDir& dir, const std::string& name, const std::string& body) {
  std::string path = dir.File(name);
  WriteFile(path,
            "#!/bin/bash\n"
            "while [ $# -gt 0 ]; do\n"
            "  case \"$1\" in\n"
            "    --socket) socket=\"$2\"; shift 2;;\n"
            "    --ready-fd) ready=\"$2\"; shift 2;;\n"
            "    *) echo \"$1\" >> \"$(dirname \"$0\")/extra-args\"; shift;;\n"
            "  esac\n"
            "done\n" +
                body,
            0755);
  return path;
}

TEST(FindDaemonBinaryTest, RawDaemonVariableWins) {
  TempDir dir;
  std::string fake = FakeDaemon(dir, "my-rawd", "exit 0\n");
  WriteFile(dir.File("rawd"), "#!/bin/sh\n", 0755);
  auto found = FindDaemonBinary(Env({{"RAW_DAEMON", fake}}), dir.File("raw"));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, fake);
}

TEST(FindDaemonBinaryTest, RawDaemonThatIsNotExecutableIsAnError) {
  TempDir dir;
  WriteFile(dir.File("plain"), "text", 0644);
  auto found = FindDaemonBinary(Env({{"RAW_DAEMON", dir.File("plain")}}), "");
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("RAW_DAEMON"), std::string::npos);
  EXPECT_NE(found.status().message().find(dir.File("plain")), std::string::npos);
}

TEST(FindDaemonBinaryTest, BareRawDaemonNameIsSearchedOnPath) {
  TempDir dir;
  FakeDaemon(dir, "rawd-dev", "exit 0\n");
  auto found = FindDaemonBinary(Env({{"RAW_DAEMON", "rawd-dev"}, {"PATH", dir.path()}}), "");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, dir.File("rawd-dev"));
}

TEST(FindDaemonBinaryTest, PrefersTheDaemonBesideTheClient) {
  TempDir bin;
  TempDir path_dir;
  WriteFile(bin.File("rawd"), "#!/bin/sh\n", 0755);
  WriteFile(path_dir.File("rawd"), "#!/bin/sh\n", 0755);
  auto found = FindDaemonBinary(Env({{"PATH", path_dir.path()}}), bin.File("raw"));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, bin.File("rawd"));
}

TEST(FindDaemonBinaryTest, FallsBackToPath) {
  TempDir bin;
  TempDir path_dir;
  WriteFile(path_dir.File("rawd"), "#!/bin/sh\n", 0755);
  auto found =
      FindDaemonBinary(Env({{"PATH", "/nonexistent:" + path_dir.path()}}), bin.File("raw"));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, path_dir.File("rawd"));
}

TEST(FindDaemonBinaryTest, NotFoundSaysWhereItLooked) {
  TempDir bin;
  auto found = FindDaemonBinary(Env({{"PATH", "/nonexistent"}}), bin.File("raw"));
  ASSERT_TRUE(absl::IsNotFound(found.status())) << found.status();
  EXPECT_NE(found.status().message().find(bin.File("rawd")), std::string::npos);
  EXPECT_NE(found.status().message().find("RAW_DAEMON"), std::string::npos);
}

TEST(LaunchDaemonTest, ReturnsOnceTheDaemonIsReadyAndPassesItsArguments) {
  TempDir dir;
  std::string daemon = FakeDaemon(dir, "rawd",
                                  "echo \"$socket\" > \"$(dirname \"$0\")/socket-arg\"\n"
                                  "printf R >&\"$ready\"\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  launch.extra_args = {"--config", "/x/config.json"};
  absl::Status status = LaunchDaemon(launch);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(ReadFile(dir.File("socket-arg")), dir.File("rawd.sock") + "\n");
  EXPECT_EQ(ReadFile(dir.File("extra-args")), "--config\n/x/config.json\n");
}

TEST(LaunchDaemonTest, DaemonIsDetachedFromTheClient) {
  TempDir dir;
  // Records its session id, parent pid, working directory and open fds
  // before it reports ready.
  std::string daemon = FakeDaemon(dir, "rawd",
                                  "out=\"$(dirname \"$0\")\"\n"
                                  "cut -d' ' -f4,6 /proc/$$/stat > \"$out/stat\"\n"
                                  "pwd > \"$out/cwd\"\n"
                                  // The glob's own directory fd is closed by
                                  // the time readlink runs, so it drops out.
                                  "fds=''\n"
                                  "for f in /proc/$$/fd/*; do\n"
                                  "  readlink \"$f\" > /dev/null && fds=\"$fds ${f##*/}\"\n"
                                  "done\n"
                                  "echo $fds > \"$out/fds\"\n"
                                  "echo \"$ready\" > \"$out/ready\"\n"
                                  "printf R >&\"$ready\"\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  ASSERT_TRUE(LaunchDaemon(launch).ok());
  std::vector<std::string> stat = absl::StrSplit(ReadFile(dir.File("stat")), ' ');
  ASSERT_EQ(stat.size(), 2u);
  EXPECT_NE(std::stol(stat[0]), static_cast<long>(getpid())) << "the daemon is our child";
  EXPECT_NE(std::stol(stat[1]), static_cast<long>(getsid(0))) << "the daemon is in our session";
  EXPECT_EQ(ReadFile(dir.File("cwd")), "/\n");
  // stdin, stdout, stderr and the ready fd; nothing else of ours leaks in
  // (bash itself may hold its script open on fd 255).
  int ready = std::stoi(ReadFile(dir.File("ready")));
  std::set<int> fds;
  for (absl::string_view fd : absl::StrSplit(ReadFile(dir.File("fds")), ' ', absl::SkipWhitespace())) {
    fds.insert(std::stoi(std::string(fd)));
  }
  fds.erase(255);
  EXPECT_EQ(fds, (std::set<int>{0, 1, 2, ready}));
}

TEST(LaunchDaemonTest, FailureIncludesWhatTheDaemonPrinted) {
  TempDir dir;
  std::string daemon = FakeDaemon(dir, "rawd",
                                  "echo 'starting' >&2\n"
                                  "echo 'config.json: agents.coder.model: unknown model \"x\"' >&2\n"
                                  "exit 2\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("failed to start"), std::string::npos) << status;
  EXPECT_NE(status.message().find("agents.coder.model: unknown model \"x\""), std::string::npos)
      << status;
  EXPECT_NE(status.message().find(daemon), std::string::npos) << status;
}

TEST(LaunchDaemonTest, ReasonPrintedAfterClosingTheReadyFdIsStillCaught) {
  TempDir dir;
  std::string daemon = FakeDaemon(dir, "rawd",
                                  "exec {ready}>&-\n"
                                  "echo 'database is locked by another rawd' >&2\n"
                                  "exit 1\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("database is locked by another rawd"), std::string::npos)
      << status;
}

TEST(LaunchDaemonTest, SilentFailureSaysSo) {
  TempDir dir;
  std::string daemon = FakeDaemon(dir, "rawd", "exit 3\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("printed no reason"), std::string::npos) << status;
}

TEST(LaunchDaemonTest, UnexpectedReadyByteIsAnError) {
  TempDir dir;
  std::string daemon = FakeDaemon(dir, "rawd", "printf X >&\"$ready\"\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("unexpected"), std::string::npos) << status;
}

TEST(LaunchDaemonTest, NotExecutableIsRefusedBeforeForking) {
  TempDir dir;
  WriteFile(dir.File("rawd"), "#!/bin/sh\n", 0644);
  DaemonLaunch launch;
  launch.daemon_path = dir.File("rawd");
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("not an executable"), std::string::npos) << status;
}

TEST(LaunchDaemonTest, ExecFailureIsReported) {
  TempDir dir;
  // Executable, but its interpreter does not exist: execv itself fails.
  WriteFile(dir.File("rawd"), "#!/nonexistent/interpreter\n", 0755);
  DaemonLaunch launch;
  launch.daemon_path = dir.File("rawd");
  launch.socket_path = dir.File("rawd.sock");
  absl::Status status = LaunchDaemon(launch);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot execute"), std::string::npos) << status;
}

TEST(LaunchDaemonTest, GivesUpWhenTheDaemonNeverReports) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.File("gate").c_str(), 0600), 0);
  // Blocks until the test opens the gate, without ever writing to $ready.
  std::string daemon = FakeDaemon(dir, "rawd", "read line < \"$(dirname \"$0\")/gate\"\n");
  DaemonLaunch launch;
  launch.daemon_path = daemon;
  launch.socket_path = dir.File("rawd.sock");
  launch.ready_timeout = absl::Milliseconds(300);
  absl::Status status = LaunchDaemon(launch);
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_NE(status.message().find("did not report"), std::string::npos) << status;
  // Release the stand-in.
  WriteFile(dir.File("gate"), "go\n");
}

}  // namespace
}  // namespace raw::client
