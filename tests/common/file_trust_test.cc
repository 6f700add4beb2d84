#include "common/file_trust.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class FileTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-trust-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/config.json";
    std::ofstream(path_) << "{}";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  std::string path_;
};

TEST_F(FileTrustTest, APrivateFileOfTheUserGivesNoWarning) {
  ASSERT_EQ(chmod(path_.c_str(), 0644), 0);
  EXPECT_THAT(FileTrustWarnings("the config file", path_, getuid()), IsEmpty());
  EXPECT_THAT(FileTrustWarnings("the config file", dir_ + "/missing.json", getuid()), IsEmpty());
}

TEST_F(FileTrustTest, AFileOthersCanWriteIsNamedWithItsModeAndTheFix) {
  ASSERT_EQ(chmod(path_.c_str(), 0666), 0);
  EXPECT_THAT(FileTrustWarnings("the config file", path_, getuid()),
              ElementsAre("the config file " + path_ +
                          " is writable by group and others (mode 0666); anyone who can write it "
                          "decides which commands rawd runs: run chmod go-w " +
                          path_));
  ASSERT_EQ(chmod(path_.c_str(), 0620), 0);
  EXPECT_THAT(FileTrustWarnings("the config file", path_, getuid()),
              ElementsAre(HasSubstr("is writable by its group (mode 0620)")));
}

TEST_F(FileTrustTest, AFileOfAnotherUserIsNamedWithItsOwner) {
  ASSERT_EQ(chmod(path_.c_str(), 0600), 0);
  struct stat info;
  ASSERT_EQ(stat(path_.c_str(), &info), 0);
  info.st_uid = 1001;
  EXPECT_THAT(FileTrustWarningsFor("the config file", path_, info, 1000),
              ElementsAre("the config file " + path_ +
                          " belongs to another user (uid 1001), who decides which commands rawd "
                          "runs as you"));
  EXPECT_THAT(FileTrustWarningsFor("the config file", path_, info, 1001), IsEmpty());
  // Root can change any file anyway: a file of root's is no warning.
  info.st_uid = 0;
  EXPECT_THAT(FileTrustWarningsFor("the config file", path_, info, 1000), IsEmpty());
  // Through the file system: the file is the test's own.
  if (getuid() != 0) {
    EXPECT_THAT(
        FileTrustWarnings("the config file", path_, getuid() + 1),
        ElementsAre(HasSubstr(" belongs to another user (uid " + std::to_string(getuid()) + ")")));
  }
}

}  // namespace
}  // namespace raw
