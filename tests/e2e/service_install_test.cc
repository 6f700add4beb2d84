// `raw daemon install-service` / `uninstall-service` through the real `raw`
// binary. systemctl is replaced on PATH by a script that records its
// arguments: there is no systemd user manager to talk to here.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ServiceInstallTest : public ::testing::Test {
 protected:
  ServiceInstallTest() : daemon_("{}") {
    const std::string bin = daemon_.root() + "/fakebin";
    std::filesystem::create_directories(bin);
    const std::string systemctl = bin + "/systemctl";
    std::ofstream(systemctl) << "#!/bin/sh\necho \"$*\" >> " << CallsPath() << "\n"
                             << "[ \"$FAIL_SYSTEMCTL\" = 1 ] && { echo 'Failed to connect to bus' >&2; "
                                "exit 1; }\nexit 0\n";
    chmod(systemctl.c_str(), 0755);
    daemon_.SetEnv("PATH", bin + ":/usr/bin:/bin");
    daemon_.SetEnv("XDG_CONFIG_HOME", daemon_.root() + "/config");
  }
  std::string CallsPath() const { return daemon_.root() + "/systemctl.calls"; }
  std::string UnitDir() const { return daemon_.root() + "/config/systemd/user"; }
  TestDaemon daemon_;
};

TEST_F(ServiceInstallTest, InstallWritesBothUnitsNamingThisRawdAndReloadsSystemd) {
  CommandResult result = daemon_.RunRaw({"daemon", "install-service", "--socket-activated"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string service = ReadFile(UnitDir() + "/rawd.service");
  const std::string socket = ReadFile(UnitDir() + "/rawd.socket");
  EXPECT_NE(service.find(absl::StrCat("ExecStart=", BinaryPath("rawd"),
                                      " --foreground --socket %t/raw/rawd.sock --idle-exit 900")),
            std::string::npos)
      << service;
  EXPECT_NE(socket.find("ListenStream=%t/raw/rawd.sock"), std::string::npos) << socket;
  EXPECT_EQ(ReadFile(CallsPath()), "--user daemon-reload\n");
  EXPECT_NE(result.out.find("systemctl --user enable --now rawd.socket"), std::string::npos)
      << result.out;

  // A plain service replaces the socket-activated pair.
  result = daemon_.RunRaw({"daemon", "install-service"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists(UnitDir() + "/rawd.socket"));
  EXPECT_EQ(ReadFile(UnitDir() + "/rawd.service").find("--idle-exit"), std::string::npos);

  result = daemon_.RunRaw({"daemon", "uninstall-service"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists(UnitDir() + "/rawd.service"));
  EXPECT_EQ(ReadFile(CallsPath()),
            "--user daemon-reload\n"
            "--user disable --now rawd.socket\n"
            "--user daemon-reload\n"
            "--user disable --now rawd.service\n"
            "--user daemon-reload\n");
}

TEST_F(ServiceInstallTest, AUnitSomeoneElseWroteIsNeitherReplacedNorRemoved) {
  std::filesystem::create_directories(UnitDir());
  std::ofstream(UnitDir() + "/rawd.service") << "[Service]\nExecStart=/usr/bin/mine\n";
  CommandResult result = daemon_.RunRaw({"daemon", "install-service"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("was not written by raw"), std::string::npos) << result.err;
  result = daemon_.RunRaw({"daemon", "uninstall-service"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("leaving"), std::string::npos) << result.err;
  EXPECT_EQ(ReadFile(UnitDir() + "/rawd.service"), "[Service]\nExecStart=/usr/bin/mine\n");
  EXPECT_FALSE(std::filesystem::exists(CallsPath())) << "systemctl must not run";
}

TEST_F(ServiceInstallTest, WithoutASystemdUserManagerTheUnitsAreWrittenAndTheFailureExplained) {
  daemon_.SetEnv("FAIL_SYSTEMCTL", "1");
  CommandResult result = daemon_.RunRaw({"daemon", "install-service"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("Failed to connect to bus"), std::string::npos) << result.err;
  EXPECT_TRUE(std::filesystem::exists(UnitDir() + "/rawd.service"));
}

}  // namespace
}  // namespace raw::e2e

namespace raw::e2e {
namespace {

TEST(ConfigSchemaTest, ConfigInitPointsEditorsAtTheSchemaInstalledWithRawAndTheDaemonAcceptsIt) {
  TestDaemon daemon("{}");
  ASSERT_TRUE(daemon.Start().ok());
  const std::string path = daemon.root() + "/written.json";
  CommandResult init = daemon.RunRaw({"config", "init", "--config", path});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const std::string text = ReadFile(path);
  // build/bin/raw finds build/share/raw/, as <prefix>/bin/raw finds
  // <prefix>/share/raw/.
  const std::string schema = BinaryPath("raw").substr(0, BinaryPath("raw").rfind("/bin/")) +
                             "/share/raw/config.schema.json";
  EXPECT_NE(text.find(absl::StrCat("\"$schema\": \"file://", schema, "\"")), std::string::npos)
      << text;
  EXPECT_EQ(ReadFile(schema), ReadFile(RAW_SOURCE_DIR "/docs/config.schema.json"));
  CommandResult check = daemon.RunRaw({"config", "check", "--config", path});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace raw::e2e
