#include "daemon/tools/builtin/gitignore.h"

#include <fcntl.h>

#include <filesystem>
#include <string>

#include "daemon/tools/builtin/checked_open.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::builtin {
namespace {

using Verdict = GitignoreRules::Verdict;
using ::raw::tools::testing::TempDir;
using ::raw::tools::testing::WriteText;

TEST(GitignoreRulesTest, NamesWithoutSlashMatchAtAnyDepth) {
  GitignoreRules rules = GitignoreRules::Parse("*.o\nnode_modules\n");
  EXPECT_EQ(rules.Match("a.o", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("src/deep/b.o", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("web/node_modules", true), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("a.c", false), Verdict::kNone);
}

TEST(GitignoreRulesTest, CommentsBlankLinesAndEscapes) {
  GitignoreRules rules = GitignoreRules::Parse("# comment\n\n\\#hash\n\\!bang\ntrail\\ \n  \n");
  EXPECT_EQ(rules.Match("# comment", false), Verdict::kNone);
  EXPECT_EQ(rules.Match("#hash", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("!bang", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("trail ", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("trail", false), Verdict::kNone);
}

TEST(GitignoreRulesTest, TrailingSpacesAndCrlfAreDropped) {
  GitignoreRules rules = GitignoreRules::Parse("tmp   \r\nlog\r\n");
  EXPECT_EQ(rules.Match("tmp", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("log", false), Verdict::kIgnored);
}

TEST(GitignoreRulesTest, NegationReincludesAndTheLastMatchWins) {
  GitignoreRules rules = GitignoreRules::Parse("*.log\n!important.log\n");
  EXPECT_EQ(rules.Match("debug.log", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("important.log", false), Verdict::kIncluded);
  GitignoreRules reversed = GitignoreRules::Parse("!important.log\n*.log\n");
  EXPECT_EQ(reversed.Match("important.log", false), Verdict::kIgnored);
}

TEST(GitignoreRulesTest, TrailingSlashMatchesDirectoriesOnly) {
  GitignoreRules rules = GitignoreRules::Parse("build/\n");
  EXPECT_EQ(rules.Match("build", true), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("sub/build", true), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("build", false), Verdict::kNone);
}

TEST(GitignoreRulesTest, SlashesAnchorToTheIgnoreFilesDirectory) {
  GitignoreRules rules = GitignoreRules::Parse("/root.txt\ndoc/*.html\n");
  EXPECT_EQ(rules.Match("root.txt", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("sub/root.txt", false), Verdict::kNone);
  EXPECT_EQ(rules.Match("doc/a.html", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("doc/api/a.html", false), Verdict::kNone);
  EXPECT_EQ(rules.Match("x/doc/a.html", false), Verdict::kNone);
}

TEST(GitignoreRulesTest, DoubleStars) {
  GitignoreRules rules = GitignoreRules::Parse("**/logs\nout/**\na/**/b\n");
  EXPECT_EQ(rules.Match("logs", true), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("x/y/logs", true), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("out/x/y.txt", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("out", true), Verdict::kNone);  // "out/**" is what is inside
  EXPECT_EQ(rules.Match("a/b", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("a/x/y/b", false), Verdict::kIgnored);
}

TEST(GitignoreRulesTest, CharacterClassesAndQuestionMarks) {
  GitignoreRules rules = GitignoreRules::Parse("file[0-9].txt\n?.tmp\n[!a]*.bak\n");
  EXPECT_EQ(rules.Match("file7.txt", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("filex.txt", false), Verdict::kNone);
  EXPECT_EQ(rules.Match("x.tmp", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("xy.tmp", false), Verdict::kNone);
  EXPECT_EQ(rules.Match("b1.bak", false), Verdict::kIgnored);
  EXPECT_EQ(rules.Match("a1.bak", false), Verdict::kNone);
}

// The directory at `path`, opened as a walk opens it.
FileHandle OpenDir(const std::string& path) {
  FileHandle fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_GE(fd.get(), 0) << path;
  return fd;
}

TEST(GitignoreStackTest, DeeperFilesOverrideShallowerOnes) {
  TempDir dir;
  WriteText(dir.Join(".gitignore"), "*.txt\n");
  WriteText(dir.Join("sub/.gitignore"), "!keep.txt\n");
  FileHandle top = OpenDir(dir.path());
  FileHandle sub = OpenDir(dir.Join("sub"));
  GitignoreStack stack;
  stack.Push(dir.path(), top.get());
  EXPECT_TRUE(stack.IsIgnored(dir.Join("a.txt"), false));
  stack.Push(dir.Join("sub"), sub.get());
  EXPECT_FALSE(stack.IsIgnored(dir.Join("sub/keep.txt"), false));
  EXPECT_TRUE(stack.IsIgnored(dir.Join("sub/other.txt"), false));
  stack.Pop();
  EXPECT_TRUE(stack.IsIgnored(dir.Join("keep.txt"), false));
  EXPECT_FALSE(stack.IsIgnored(dir.Join("a.md"), false));
}

TEST(GitignoreStackTest, ParentsCountOnlyInsideAGitWorkTree) {
  TempDir dir;
  WriteText(dir.Join(".gitignore"), "*.tmp\n");
  std::filesystem::create_directories(dir.Join("a/b"));
  FileHandle root = OpenDir(dir.Join("a/b"));
  GitignoreStack outside;
  outside.LoadParents(dir.Join("a/b"), root.get());
  EXPECT_FALSE(outside.IsIgnored(dir.Join("a/b/x.tmp"), false));

  std::filesystem::create_directories(dir.Join(".git"));
  GitignoreStack inside;
  inside.LoadParents(dir.Join("a/b"), root.get());
  EXPECT_TRUE(inside.IsIgnored(dir.Join("a/b/x.tmp"), false));
}

// A .gitignore over 1 MiB is not read at all (rather than cut mid-line).
TEST(GitignoreStackTest, AnOversizedGitignoreIsNotRead) {
  TempDir dir;
  WriteText(dir.Join(".gitignore"), "*.tmp\n" + std::string(1 << 20, '#'));
  FileHandle top = OpenDir(dir.path());
  GitignoreStack stack;
  stack.Push(dir.path(), top.get());
  EXPECT_FALSE(stack.IsIgnored(dir.Join("x.tmp"), false));
}

// The parents are the directories above the opened root, whatever their
// paths name by the time they are read: a link put in place of one of
// them leads to no other .gitignore.
TEST(GitignoreStackTest, ParentsAreReachedFromTheOpenedRootNotByTheirPaths) {
  TempDir dir;
  std::filesystem::create_directories(dir.Join(".git"));
  std::filesystem::create_directories(dir.Join("a/b"));
  WriteText(dir.Join(".gitignore"), "*.tmp\n");
  TempDir other;
  std::filesystem::create_directories(other.Join(".git"));
  WriteText(other.Join(".gitignore"), "*.md\n");
  WriteText(other.Join("a/.gitignore"), "*.md\n");
  FileHandle root = OpenDir(dir.Join("a/b"));
  std::filesystem::rename(dir.Join("a"), dir.Join("moved"));
  std::filesystem::create_symlink(other.path(), dir.Join("a"));

  GitignoreStack stack;
  stack.LoadParents(dir.Join("a/b"), root.get());
  EXPECT_TRUE(stack.IsIgnored(dir.Join("a/b/x.tmp"), false));
  EXPECT_FALSE(stack.IsIgnored(dir.Join("a/b/x.md"), false));
}

}  // namespace
}  // namespace raw::tools::builtin
