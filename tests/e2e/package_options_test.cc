// `raw package` takes each option only with the action it is for: an option
// of another action is refused before anything is done, naming the option
// and the action, so `remove --dry-run` never removes for real and `verify
// --as` is not silently ignored.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;

class PackageOptionsE2eTest : public ::testing::Test {
 protected:
  PackageOptionsE2eTest() : home_("{}") {}

  // `raw package ARGS... --config <the test's config>`.
  CommandResult Package(std::vector<std::string> args) {
    args.insert(args.begin(), "package");
    args.push_back("--config");
    args.push_back(home_.config_path());
    return home_.RunRaw(args);
  }

  // A minimal package folder named `name`.
  std::string WritePackage(const std::string& name) {
    const std::string dir = absl::StrCat(home_.root(), "/", name);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/raw-package.json") << absl::StrCat(
        R"({"name": ")", name, R"(", "version": "1.0.0", "description": "d", "exports": {}})");
    return dir;
  }

  TestDaemon home_;  // never started: `raw package` needs no daemon
};

TEST_F(PackageOptionsE2eTest, AnOptionOfAnotherActionIsRefusedAndNothingIsDone) {
  ASSERT_EQ(Package({"install", WritePackage("a1")}).exit_code, 0);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"remove", "a1", "--dry-run"},
            "raw package remove: --dry-run does not apply to remove (it is an option of raw "
            "package gc)"},
           {{"verify", "--as", "zz"},
            "raw package verify: --as does not apply to verify (it is an option of raw package "
            "install)"},
           {{"list", "--dry-run"}, "--dry-run does not apply to list"},
           {{"inspect", "a1", "--as=zz"}, "--as does not apply to inspect"},
           {{"gc", "--as", "zz"}, "--as does not apply to gc"},
           {{"install", WritePackage("a2"), "--dry-run"}, "--dry-run does not apply to install"}}) {
    CommandResult r = Package(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0];
    EXPECT_THAT(r.err, HasSubstr(c.says)) << c.args[0];
    EXPECT_EQ(r.out, "") << c.args[0];
  }
  // Nothing was removed or installed.
  CommandResult list = Package({"list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("a1  a1 1.0.0"));
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr("a2  a2")));

  // Each option with its own action, and the common ones with any.
  EXPECT_EQ(Package({"gc", "--dry-run", "--json"}).exit_code, 0);
  EXPECT_EQ(Package({"verify", "a1", "--json"}).exit_code, 0);
  EXPECT_EQ(Package({"install", WritePackage("a3"), "--as", "a3x"}).exit_code, 0);
  EXPECT_EQ(Package({"remove", "a1", "--json"}).exit_code, 0);
}

}  // namespace
}  // namespace raw::e2e
