#include "daemon/app/dir_permissions.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::app {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class DirPermissionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw-dirperm-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    for (const char* name : {"/private", "/group", "/open"}) rmdir((root_ + name).c_str());
    rmdir(root_.c_str());
  }
  std::string Make(const char* name, mode_t mode) {
    std::string path = root_ + name;
    EXPECT_EQ(mkdir(path.c_str(), 0700), 0);
    EXPECT_EQ(chmod(path.c_str(), mode), 0);  // past the umask
    return path;
  }
  std::string root_;
};

TEST_F(DirPermissionsTest, NamesEveryDirectoryOthersMayWriteAndNothingElse) {
  std::string private_dir = Make("/private", 0755);
  std::string group_dir = Make("/group", 0770);
  std::string open_dir = Make("/open", 0777);
  std::vector<std::string> warnings = DirPermissionWarnings({{"state directory", private_dir},
                                                             {"config directory", group_dir},
                                                             {"state directory", open_dir},
                                                             {"state directory", root_ + "/none"}},
                                                            getuid());
  EXPECT_THAT(warnings,
              ElementsAre("the config directory " + group_dir +
                              " is writable by its group (mode 0770); anyone who can write there "
                              "can replace files rawd opens: run chmod go-w " + group_dir,
                          "the state directory " + open_dir +
                              " is writable by group and others (mode 0777); anyone who can "
                              "write there can replace files rawd opens: run chmod go-w " +
                              open_dir));
  EXPECT_THAT(DirPermissionWarnings({{"state directory", private_dir}}, getuid()), IsEmpty());
}

// A directory of another user's is theirs to change whatever its mode: they
// can rename a config of their own over the one in it.
TEST(DirTrustWarningsTest, ADirectoryOfAnotherUserIsNamedWithItsOwnerUnlessItIsRoot) {
  struct stat info = {};
  info.st_mode = S_IFDIR | 0755;
  info.st_uid = 1001;
  const TrustedDir dir{"config directory", "/home/u/.config/raw"};
  EXPECT_THAT(DirTrustWarnings(dir, info, 1000),
              ElementsAre("the config directory /home/u/.config/raw belongs to another user (uid "
                          "1001), who can replace the files rawd opens there"));
  EXPECT_THAT(DirTrustWarnings(dir, info, 1001), IsEmpty());
  info.st_uid = 0;  // root's, as /etc is
  EXPECT_THAT(DirTrustWarnings(dir, info, 1000), IsEmpty());
  info.st_uid = 1001;
  info.st_mode = S_IFDIR | 0775;
  EXPECT_THAT(DirTrustWarnings(dir, info, 1000),
              ElementsAre(HasSubstr("is writable by its group (mode 0775)"),
                          HasSubstr("belongs to another user (uid 1001)")));
}

TEST_F(DirPermissionsTest, ADirectoryOfAnotherUserIsFoundOnDisk) {
  std::string dir = Make("/private", 0755);
  uid_t someone_else = getuid() + 1;
  if (getuid() == 0) {
    // Root can give the directory away; the daemon's uid is then another.
    ASSERT_EQ(chown(dir.c_str(), 4242, 4242), 0);
    someone_else = 4243;
  }
  EXPECT_THAT(DirPermissionWarnings({{"hooks directory", dir}}, someone_else),
              ElementsAre("the hooks directory " + dir + " belongs to another user (uid " +
                          std::to_string(getuid() == 0 ? 4242 : getuid()) +
                          "), who can replace the files rawd opens there"));
}

}  // namespace
}  // namespace raw::app
