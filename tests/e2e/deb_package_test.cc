// The Debian package built from this tree (`cpack -G DEB`), unpacked into a
// throwaway root and used from there: its dependencies are installed, its
// programs run a turn against the fake provider, its man pages render and
// its bash completion loads. lintian, when installed, reports nothing.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/e2e/e2e_fixture.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace chat = testing::chat;

const std::map<std::string, std::string> kPlainEnv = {{"PATH", "/usr/bin:/bin"},
                                                      {"LANG", "C.UTF-8"}};

CommandResult Shell(const std::string& script,
                    const std::map<std::string, std::string>& env = kPlainEnv) {
  return RunCommand({"/bin/sh", "-c", script}, env);
}

class DebPackageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/raw-deb-XXXXXX";
    dir_ = new std::string(mkdtemp(tmpl));
    CommandResult packed =
        RunCommand({"/usr/bin/env", "cpack", "-G", "DEB", "-B", *dir_, "--config",
                    absl::StrCat(RAW_BINARY_DIR, "/CPackConfig.cmake")},
                   kPlainEnv);
    ASSERT_EQ(packed.exit_code, 0) << packed.out << packed.err;
    for (const auto& entry : std::filesystem::directory_iterator(*dir_)) {
      if (entry.path().extension() == ".deb") deb_ = new std::string(entry.path().string());
    }
    ASSERT_NE(deb_, nullptr) << packed.out;
    root_ = new std::string(*dir_ + "/root");
    CommandResult unpacked = RunCommand({"/usr/bin/env", "dpkg-deb", "-x", *deb_, *root_}, kPlainEnv);
    ASSERT_EQ(unpacked.exit_code, 0) << unpacked.err;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    if (dir_ != nullptr) std::filesystem::remove_all(*dir_, ec);
  }
  void SetUp() override {
    if (deb_ == nullptr) GTEST_SKIP() << "the package was not built";
  }
  static std::string Installed(const std::string& path) { return *root_ + "/usr/" + path; }

  static std::string* dir_;
  static std::string* deb_;
  static std::string* root_;
};
std::string* DebPackageTest::dir_ = nullptr;
std::string* DebPackageTest::deb_ = nullptr;
std::string* DebPackageTest::root_ = nullptr;

TEST_F(DebPackageTest, TheNameVersionAndEveryDependencyHold) {
  EXPECT_THAT(*deb_, ::testing::EndsWith("/raw_0.1.0_amd64.deb"));
  CommandResult depends = RunCommand({"/usr/bin/env", "dpkg-deb", "-f", *deb_, "Depends"}, kPlainEnv);
  ASSERT_EQ(depends.exit_code, 0);
  // Computed by dpkg-shlibdeps: every shared library the programs link. gRPC
  // and its kin are linked in (CMakeLists.txt, RAW_STATIC_DEPS).
  EXPECT_THAT(depends.out, HasSubstr("libsqlite3-0"));
  EXPECT_THAT(depends.out, HasSubstr("libcurl4"));
  // Stated (packaging/CMakeLists.txt): rawd loads libcurl when it first needs
  // it, so no link of rawd's records it.
  EXPECT_THAT(depends.out, HasSubstr("libcurl4 (>= 7.80.0)"));
  EXPECT_THAT(depends.out, Not(HasSubstr("libgrpc")));
  EXPECT_THAT(depends.out, Not(HasSubstr("libabsl")));
  for (absl::string_view item : absl::StrSplit(absl::StripTrailingAsciiWhitespace(depends.out), ", ")) {
    // "name (>= version)"
    std::vector<std::string> parts = absl::StrSplit(item, absl::ByAnyChar(" ()"), absl::SkipEmpty());
    ASSERT_FALSE(parts.empty());
    CommandResult have = RunCommand({"/usr/bin/env", "dpkg-query", "-W", "-f=${Version}", parts[0]}, kPlainEnv);
    ASSERT_EQ(have.exit_code, 0) << parts[0] << " is not installed";
    if (parts.size() == 3) {
      CommandResult fits = RunCommand(
          {"/usr/bin/env", "dpkg", "--compare-versions", have.out, parts[1] == ">=" ? "ge" : parts[1], parts[2]},
          kPlainEnv);
      EXPECT_EQ(fits.exit_code, 0) << item << " but " << have.out << " is installed";
    }
  }
}

TEST_F(DebPackageTest, LintianFindsNothing) {
  if (access("/usr/bin/lintian", X_OK) != 0) GTEST_SKIP() << "lintian is not installed";
  CommandResult lint = RunCommand({"/usr/bin/env", "lintian", "--allow-root", *deb_}, kPlainEnv);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out, "");
}

TEST_F(DebPackageTest, TheInstalledProgramsRunATurnWithTheirOwnDaemon) {
  for (const char* program : {"bin/raw", "bin/rawd", "bin/raw-acp", "bin/raw-package"}) {
    CommandResult version = RunCommand({Installed(program), "--version"}, kPlainEnv);
    EXPECT_EQ(version.exit_code, 0) << program << version.err;
    EXPECT_THAT(version.out, HasSubstr("0.1.0")) << program;
  }
  // `raw package` runs the raw-package installed beside raw.
  CommandResult package = RunCommand({Installed("bin/raw"), "package", "--help"}, kPlainEnv);
  EXPECT_EQ(package.exit_code, 0) << package.err;
  EXPECT_THAT(package.out, HasSubstr("usage: raw package install"));

  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon paths(TestConfig(fake.base_url()));  // only its directories and config
  std::map<std::string, std::string> env = paths.env();
  // The installed raw starts the rawd installed beside it.
  CommandResult check = RunCommand({Installed("bin/raw"), "config", "check"}, env);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_THAT(check.out, HasSubstr("ok"));
  fake.Enqueue(chat::TextAnswer("Hello from the package."));
  CommandResult run =
      RunCommand({Installed("bin/raw"), "run", "--cwd", paths.workdir(), "hi"}, env);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Hello from the package."));
  CommandResult status = RunCommand({Installed("bin/raw"), "daemon", "status", "--json"}, env);
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json info = nlohmann::json::parse(status.out, nullptr, false);
  ASSERT_TRUE(info.is_object()) << status.out;
  // int64 fields are JSON strings in the protobuf mapping.
  const std::string pid = info.value("pid", std::string());
  std::error_code ec;
  EXPECT_EQ(std::filesystem::read_symlink("/proc/" + pid + "/exe", ec).string(),
            std::filesystem::canonical(Installed("bin/rawd")).string())
      << status.out;
  // config init finds the schema the package installed.
  CommandResult init = RunCommand(
      {Installed("bin/raw"), "config", "init", "--config", paths.root() + "/new.json"}, env);
  EXPECT_EQ(init.exit_code, 0) << init.err;
  std::ifstream written(paths.root() + "/new.json");
  std::string text((std::istreambuf_iterator<char>(written)), {});
  EXPECT_THAT(text, HasSubstr(absl::StrCat("file://", std::filesystem::canonical(*root_).string(),
                                           "/usr/share/raw/config.schema.json")));
  // The package manifest's schema lies beside it (docs/packages.md).
  EXPECT_TRUE(std::filesystem::is_regular_file(Installed("share/raw/package.schema.json")));
  EXPECT_EQ(RunCommand({Installed("bin/raw"), "daemon", "stop"}, env).exit_code, 0);
}

TEST_F(DebPackageTest, ManPagesRenderAndTheBashCompletionLoads) {
  for (const char* page :
       {"man1/raw.1.gz", "man1/rawd.1.gz", "man1/raw-acp.1.gz", "man1/raw-package.1.gz",
        "man5/raw-config.5.gz"}) {
    CommandResult man =
        Shell(absl::StrCat("MANWIDTH=80 man -l ", Installed(absl::StrCat("share/man/", page))));
    EXPECT_EQ(man.exit_code, 0) << page << man.err;
    EXPECT_THAT(man.out, HasSubstr("NAME")) << page;
    EXPECT_THAT(man.out, HasSubstr("SEE ALSO")) << page;
  }
  CommandResult complete = Shell(absl::StrCat(
      "bash -c '. ", Installed("share/bash-completion/completions/raw"), " && complete -p raw'"));
  EXPECT_EQ(complete.out, "complete -F _raw raw\n") << complete.err;
  for (const char* unit : {"lib/systemd/user/rawd.service", "lib/systemd/user/rawd.socket",
                           "share/zsh/vendor-completions/_raw",
                           "share/fish/vendor_completions.d/raw.fish",
                           "share/doc/raw/copyright", "share/doc/raw/changelog.gz"}) {
    EXPECT_TRUE(std::filesystem::exists(Installed(unit))) << unit;
  }
}

}  // namespace
}  // namespace raw::e2e
