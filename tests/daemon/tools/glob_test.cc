#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/rule_path.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Call;
using testing::TempDir;
using testing::WriteText;

// Sets a file's modification time to `seconds` after the epoch.
void SetMtime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

class GlobTest : public ::testing::Test {
 protected:
  ToolOutput Glob(const Json& args, const config::ToolSettings& settings = {}) {
    return Call(spec_, args, dir_.path(), settings);
  }
  // Creates `rel` with modification time `mtime`.
  void File(const std::string& rel, time_t mtime = 1000) {
    WriteText(dir_.Join(rel), rel);
    SetMtime(dir_.Join(rel), mtime);
  }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeGlobTool();
};

TEST_F(GlobTest, SpecIsReadOnlyAndRuledByPath) {
  EXPECT_EQ(spec_.model_name, "glob");
  EXPECT_TRUE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kPath);
  EXPECT_EQ(spec_.rule_argument, "path");
  EXPECT_THAT(spec_.description, HasSubstr("most recently modified first"));
}

TEST_F(GlobTest, StarStaysInOneDirectoryAndDoubleStarCrossesThem) {
  File("a.cc");
  File("src/b.cc");
  File("src/deep/er/c.cc");
  File("src/d.h");
  EXPECT_THAT(Lines(Glob({{"pattern", "*.cc"}}).content), ElementsAre("a.cc"));
  EXPECT_THAT(Lines(Glob({{"pattern", "**/*.cc"}}).content),
              ElementsAre("a.cc", "src/b.cc", "src/deep/er/c.cc"));
  EXPECT_THAT(Lines(Glob({{"pattern", "src/**/*.cc"}}).content),
              ElementsAre("src/b.cc", "src/deep/er/c.cc"));
  EXPECT_THAT(Lines(Glob({{"pattern", "src/*"}}).content), ElementsAre("src/b.cc", "src/d.h"));
  EXPECT_THAT(Lines(Glob({{"pattern", "src/**/*.{h,cc}"}}).content),
              ElementsAre("src/b.cc", "src/d.h", "src/deep/er/c.cc"));
  EXPECT_THAT(Lines(Glob({{"pattern", "src/[bd].*"}}).content),
              ElementsAre("src/b.cc", "src/d.h"));
  EXPECT_THAT(Lines(Glob({{"pattern", "**/?.h"}}).content), ElementsAre("src/d.h"));
}

TEST_F(GlobTest, SortsNewestFirstThenByName) {
  File("old.txt", 1000);
  File("new.txt", 3000);
  File("mid-b.txt", 2000);
  File("mid-a.txt", 2000);
  EXPECT_EQ(Glob({{"pattern", "*.txt"}}).content, "new.txt\nmid-a.txt\nmid-b.txt\nold.txt");
}

TEST_F(GlobTest, PathsAreRelativeToTheGivenBase) {
  File("pkg/lib/x.py");
  File("pkg/lib/sub/y.py");
  EXPECT_THAT(Lines(Glob({{"pattern", "**/*.py"}, {"path", "pkg/lib"}}).content),
              ElementsAre("sub/y.py", "x.py"));
  EXPECT_THAT(Lines(Glob({{"pattern", "**/*.py"}, {"path", dir_.Join("pkg")}}).content),
              ElementsAre("lib/sub/y.py", "lib/x.py"));
  // An absolute pattern gives absolute paths.
  EXPECT_THAT(Lines(Glob({{"pattern", dir_.Join("pkg/lib/*.py")}}).content),
              ElementsAre(dir_.Join("pkg/lib/x.py")));
}

TEST_F(GlobTest, RespectsGitignoreWithNegationAnchoringAndNestedFiles) {
  WriteText(dir_.Join(".gitignore"), "# build output\n*.log\n!keep.log\nbuild/\n/top.txt\n");
  WriteText(dir_.Join("sub/.gitignore"), "secret.txt\n!*.log\n");
  SetMtime(dir_.Join(".gitignore"), 1000);
  SetMtime(dir_.Join("sub/.gitignore"), 1000);
  for (const char* rel : {"a.log", "keep.log", "build/out.txt", "top.txt", "src.txt",
                          "sub/top.txt", "sub/secret.txt", "sub/visible.txt", "sub/x.log",
                          "other/secret.txt"}) {
    File(rel);
  }
  fs::create_directories(dir_.Join(".git"));
  File(".git/config");
  EXPECT_THAT(Lines(Glob({{"pattern", "**/*"}}).content),
              ElementsAre(".gitignore", "keep.log", "other/secret.txt", "src.txt",
                          "sub/.gitignore", "sub/top.txt", "sub/visible.txt", "sub/x.log"));
}

TEST_F(GlobTest, GitignoreFilesAboveTheBaseApplyInsideAGitWorkTree) {
  fs::create_directories(dir_.Join("repo/.git"));
  WriteText(dir_.Join("repo/.gitignore"), "*.tmp\n");
  File("repo/pkg/a.tmp");
  File("repo/pkg/a.txt");
  EXPECT_EQ(Glob({{"pattern", "*"}, {"path", "repo/pkg"}}).content, "a.txt");
  // Outside a work tree only the files from the base down count.
  File("loose/a.tmp");
  WriteText(dir_.Join(".gitignore"), "*.tmp\n");
  EXPECT_EQ(Glob({{"pattern", "*"}, {"path", "loose"}}).content, "a.tmp");
}

TEST_F(GlobTest, CapsTheListAndSaysHowManyWereLeftOut) {
  for (int i = 0; i < 5; ++i) File("f" + std::to_string(i) + ".txt", 1000 + i);
  config::ToolSettings settings;
  settings.files.max_results = 2;
  ToolOutput out = Glob({{"pattern", "*.txt"}}, settings);
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(Lines(out.content),
              ElementsAre("f4.txt", "f3.txt",
                          StartsWith("[3 more matching files not shown: the list stops at 2 "
                                     "(tools.files.max_results)")));
}

TEST_F(GlobTest, SymlinkLoopsAreNotFollowed) {
  File("d/file.txt");
  fs::create_directory_symlink("..", dir_.Join("d/up"));
  fs::create_directory_symlink(dir_.path(), dir_.Join("d/self"));
  fs::create_symlink("file.txt", dir_.Join("d/alias.txt"));
  ToolOutput out = Glob({{"pattern", "**/*.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(Lines(out.content), ElementsAre("d/alias.txt", "d/file.txt"));
}

TEST_F(GlobTest, NoMatchIsNotAnError) {
  File("a.txt");
  ToolOutput out = Glob({{"pattern", "**/*.rs"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "No files found matching \"**/*.rs\" in .");
  EXPECT_EQ(Glob({{"pattern", "missing/dir/*.rs"}}).status, events::ToolStatus::kOk);
}

TEST_F(GlobTest, BadBaseAndBadPatternAreErrors) {
  File("a.txt");
  ToolOutput missing = Glob({{"pattern", "*"}, {"path", "nowhere"}});
  EXPECT_EQ(missing.status, events::ToolStatus::kError);
  EXPECT_EQ(missing.content, "directory not found: nowhere");
  ToolOutput file = Glob({{"pattern", "*"}, {"path", "a.txt"}});
  EXPECT_EQ(file.status, events::ToolStatus::kError);
  EXPECT_THAT(file.content, StartsWith("a.txt is not a directory"));
  ToolOutput brace = Glob({{"pattern", "*.{cc"}});
  EXPECT_EQ(brace.status, events::ToolStatus::kError);
  EXPECT_THAT(brace.content, HasSubstr("unbalanced '{'"));
  EXPECT_EQ(Glob({{"pattern", ""}}).status, events::ToolStatus::kError);
  EXPECT_EQ(Glob({{"path", "."}}).content, "missing required argument \"pattern\"");
}

// The rules judge where the walk starts, and the pattern can move that:
// below `path` ("secret/**") or to "/" ("/etc/*"). A ".." segment, which
// would start the walk above the judged directory, is refused.
TEST_F(GlobTest, TheRulesJudgeTheDirectoryThePatternStartsFrom) {
  File("src/a.txt");
  File("secret/key.txt");
  auto rules = policy::RuleSet::Compile(
      {{config::RuleAction::kAllow, "builtin/glob", std::nullopt, "src/**", std::nullopt},
       {config::RuleAction::kAllow, "builtin/glob", std::nullopt, "src", std::nullopt},
       {config::RuleAction::kDeny, "builtin/glob", std::nullopt, "secret/**", std::nullopt},
       {config::RuleAction::kDeny, "builtin/glob", std::nullopt, "secret", std::nullopt}},
      "agents.x.rules");
  ASSERT_TRUE(rules.ok()) << rules.status();
  // deny_all: only an allow rule lets a call through; allow_all: only a
  // deny rule stops one. Each answer below depends on the directory judged.
  auto decide = [&](const Json& args, config::ApprovalMode mode) {
    return rules->Evaluate(spec_, args, dir_.path(), mode).action;
  };
  const auto deny_all = config::ApprovalMode::kDenyAll;
  const auto allow_all = config::ApprovalMode::kAllowAll;
  EXPECT_EQ(decide({{"path", "src"}, {"pattern", "**/*.txt"}}, deny_all),
            config::RuleAction::kAllow);
  EXPECT_EQ(decide({{"pattern", "src/**/*.txt"}}, deny_all), config::RuleAction::kAllow);
  EXPECT_EQ(decide({{"pattern", "secret/*.txt"}}, allow_all), config::RuleAction::kDeny);
  EXPECT_EQ(decide({{"path", "src"}, {"pattern", dir_.Join("secret") + "/*"}}, allow_all),
            config::RuleAction::kDeny);
  EXPECT_EQ(decide({{"path", "src"}, {"pattern", "/etc/*"}}, deny_all), config::RuleAction::kDeny);
  EXPECT_EQ(
      policy::RuleSet::ResolvedPath(spec_, {{"path", "src"}, {"pattern", "a/b/*.h"}}, dir_.path()),
      policy::ResolveRulePath(dir_.path(), "src/a/b"));
  EXPECT_EQ(policy::RuleSet::ResolvedPath(spec_, {{"path", "src"}, {"pattern", "/etc/*.conf"}},
                                          dir_.path()),
            policy::ResolveRulePath(dir_.path(), "/etc"));

  ToolOutput up = Glob({{"path", "src"}, {"pattern", "../secret/*"}});
  EXPECT_EQ(up.status, events::ToolStatus::kError);
  EXPECT_THAT(up.content, HasSubstr("has a \"..\" segment"));
  EXPECT_EQ(Glob({{"pattern", "src/../../*"}}).status, events::ToolStatus::kError);
}

}  // namespace
}  // namespace raw::tools
