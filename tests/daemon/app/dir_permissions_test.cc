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
                                                             {"state directory", root_ + "/none"}});
  EXPECT_THAT(warnings,
              ElementsAre("the config directory " + group_dir +
                              " is writable by its group (mode 0770); anyone who can write there "
                              "can replace files rawd opens: run chmod go-w " + group_dir,
                          "the state directory " + open_dir +
                              " is writable by group and others (mode 0777); anyone who can "
                              "write there can replace files rawd opens: run chmod go-w " +
                              open_dir));
  EXPECT_THAT(DirPermissionWarnings({{"state directory", private_dir}}), IsEmpty());
}

}  // namespace
}  // namespace raw::app
