// rawd's own files: the log is private, and a state or config directory
// that others may write to is reported at start, in the log and by `raw
// daemon status` (never chmod-ed).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  stat(path.c_str(), &info);
  return info.st_mode & 07777;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(StateFilesTest, TheLogIsPrivateAndLooseDirectoriesAreReportedNotChanged) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon daemon(TestConfig(fake.base_url()));
  const std::string config_dir = std::filesystem::path(daemon.config_path()).parent_path();
  std::filesystem::create_directories(daemon.state_dir());
  ASSERT_EQ(chmod(daemon.state_dir().c_str(), 0777), 0);
  ASSERT_EQ(chmod(config_dir.c_str(), 0770), 0);
  ASSERT_TRUE(daemon.Start().ok());

  auto status = daemon.RunRaw({"daemon", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("  warning    the state directory " + daemon.state_dir() +
                                    " is writable by group and others (mode 0777)"));
  EXPECT_THAT(status.out, HasSubstr("  warning    the config directory " + config_dir +
                                    " is writable by its group (mode 0770)"));
  const std::string log = daemon.state_dir() + "/rawd.log";
  EXPECT_EQ(ModeOf(log), 0600u);
  EXPECT_THAT(ReadAll(log), HasSubstr("the state directory " + daemon.state_dir() +
                                      " is writable by group and others"));
  EXPECT_EQ(ModeOf(daemon.state_dir()), 0777u);  // reported, not changed
}

TEST(StateFilesTest, PrivateDirectoriesAreNotReported) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon daemon(TestConfig(fake.base_url()));
  const std::string config_dir = std::filesystem::path(daemon.config_path()).parent_path();
  ASSERT_EQ(chmod(config_dir.c_str(), 0755), 0);
  ASSERT_TRUE(daemon.Start().ok());
  auto status = daemon.RunRaw({"daemon", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, Not(HasSubstr("warning")));
}

}  // namespace
}  // namespace raw::e2e
