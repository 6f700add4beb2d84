#include "daemon/tools/policy/command_splitter.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools::policy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Split(const std::string& command) {
  auto parts = SplitShellCommand(command);
  EXPECT_TRUE(parts.ok()) << command << ": " << parts.status();
  return parts.ok() ? *parts : std::vector<std::string>{"<error>"};
}

std::string Error(const std::string& command) {
  auto parts = SplitShellCommand(command);
  EXPECT_FALSE(parts.ok()) << command << " split into " << parts->size() << " parts";
  if (parts.ok()) return "";
  EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parts.status().message());
}

TEST(CommandSplitterTest, SimpleCommandIsTrimmedAndBlanksCollapsed) {
  EXPECT_THAT(Split("git status"), ElementsAre("git status"));
  EXPECT_THAT(Split("  git   status\t-s  "), ElementsAre("git status -s"));
  EXPECT_THAT(Split(""), IsEmpty());
  EXPECT_THAT(Split("   "), IsEmpty());
}

TEST(CommandSplitterTest, EachOperatorSeparatesCommands) {
  EXPECT_THAT(Split("git status && rm -rf x"), ElementsAre("git status", "rm -rf x"));
  EXPECT_THAT(Split("a || b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a; b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a | b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a |& b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a & b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a\nb"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a&&b||c;d|e&f"), ElementsAre("a", "b", "c", "d", "e", "f"));
  EXPECT_THAT(Split("sleep 1 &"), ElementsAre("sleep 1"));
}

TEST(CommandSplitterTest, RedirectionsStayWithTheirCommand) {
  EXPECT_THAT(Split("echo hi > f"), ElementsAre("echo hi > f"));
  EXPECT_THAT(Split("make 2>&1 | tee log"), ElementsAre("make 2>&1", "tee log"));
  EXPECT_THAT(Split("make &> log && echo ok"), ElementsAre("make &> log", "echo ok"));
  EXPECT_THAT(Split("echo x >&2"), ElementsAre("echo x >&2"));
  EXPECT_THAT(Split("echo x >| f | cat"), ElementsAre("echo x >| f", "cat"));
  EXPECT_THAT(Split("cat <<< 'a && b'"), ElementsAre("cat <<< 'a && b'"));
}

TEST(CommandSplitterTest, QuotedOperatorsDoNotSplit) {
  EXPECT_THAT(Split("echo 'a && b; c | d'"), ElementsAre("echo 'a && b; c | d'"));
  EXPECT_THAT(Split("echo \"a && b\" && ls"), ElementsAre("echo \"a && b\"", "ls"));
  EXPECT_THAT(Split("echo a\\;b\\&\\&c"), ElementsAre("echo a\\;b\\&\\&c"));
  EXPECT_THAT(Split("echo \"say \\\"hi\\\" ; ok\""), ElementsAre("echo \"say \\\"hi\\\" ; ok\""));
  EXPECT_THAT(Split("echo $'a\\' ; b'"), ElementsAre("echo $'a\\' ; b'"));
  // Quotes are kept as written, blanks inside them too.
  EXPECT_THAT(Split("grep  'a  b'   file"), ElementsAre("grep 'a  b' file"));
}

TEST(CommandSplitterTest, SubshellsAndGroups) {
  EXPECT_THAT(Split("(cd a; make) | tee log"), ElementsAre("cd a", "make", "tee log"));
  EXPECT_THAT(Split("{ a; b; } && c"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Split("((a && (b; c)) || d)"), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Split("(a) > out"), ElementsAre("a", "> out"));
  EXPECT_THAT(Split("echo {a,b} }"), ElementsAre("echo {a,b} }"));
}

TEST(CommandSplitterTest, SubstitutionsYieldTheirCommandsAndTheOuterOne) {
  EXPECT_THAT(Split("echo $(rm -rf x)"), ElementsAre("rm -rf x", "echo $(rm -rf x)"));
  EXPECT_THAT(Split("echo \"today: $(date; rm y)\""),
              ElementsAre("date", "rm y", "echo \"today: $(date; rm y)\""));
  EXPECT_THAT(Split("echo `rm -rf x`"), ElementsAre("rm -rf x", "echo `rm -rf x`"));
  EXPECT_THAT(Split("echo \"`whoami`\""), ElementsAre("whoami", "echo \"`whoami`\""));
  EXPECT_THAT(Split("diff <(ls a) >(tee b)"),
              ElementsAre("ls a", "tee b", "diff <(ls a) >(tee b)"));
  // Nested: a substitution inside a substitution inside a subshell.
  EXPECT_THAT(Split("(echo $(cat $(ls)))"), ElementsAre("ls", "cat $(ls)", "echo $(cat $(ls))"));
  // Inside a substitution, the text is kept as written.
  EXPECT_THAT(Split("x=$(ls   -l)"), ElementsAre("ls -l", "x=$(ls   -l)"));
  // Backquotes nest with escapes.
  EXPECT_THAT(Split("echo `echo \\`id\\``"),
              ElementsAre("id", "echo `id`", "echo `echo \\`id\\``"));
}

TEST(CommandSplitterTest, ExpansionsThatRunCommandsAreSeen) {
  EXPECT_THAT(Split("echo ${x:-$(rm y)}"), ElementsAre("rm y", "echo ${x:-$(rm y)}"));
  // In double quotes a single quote does not protect a substitution.
  EXPECT_THAT(Split("echo \"${x:-'$(rm y)'}\""), ElementsAre("rm y", "echo \"${x:-'$(rm y)'}\""));
  EXPECT_THAT(Split("echo ${x:-'$(rm y)'}"), ElementsAre("echo ${x:-'$(rm y)'}"));
  EXPECT_THAT(Split("echo $((1 + (2 * 3)))"), ElementsAre("echo $((1 + (2 * 3)))"));
  EXPECT_THAT(Split("echo $(( $(rm y) + 1 ))"), ElementsAre("rm y", "echo $(( $(rm y) + 1 ))"));
  // "$((" that does not close with "))" is a substitution starting with a subshell.
  EXPECT_THAT(Split("echo $((rm -rf x) | cat)"),
              ElementsAre("rm -rf x", "cat", "echo $((rm -rf x) | cat)"));
}

TEST(CommandSplitterTest, CommentsAndCompoundKeywords) {
  EXPECT_THAT(Split("ls # && rm -rf x"), ElementsAre("ls"));
  EXPECT_THAT(Split("# only a comment\nls"), ElementsAre("ls"));
  EXPECT_THAT(Split("echo a#b"), ElementsAre("echo a#b"));
  EXPECT_THAT(Split("if git diff --quiet; then rm x; else make; fi"),
              ElementsAre("git diff --quiet", "rm x", "make"));
  EXPECT_THAT(Split("while true; do rm x; done"), ElementsAre("true", "rm x"));
  EXPECT_THAT(Split("! grep -q x f"), ElementsAre("grep -q x f"));
  EXPECT_THAT(Split("echo if then"), ElementsAre("echo if then"));
}

TEST(CommandSplitterTest, LineContinuationJoinsWords) {
  EXPECT_THAT(Split("make \\\n  -j2 && ls"), ElementsAre("make -j2", "ls"));
}

TEST(CommandSplitterTest, MalformedCommandsFail) {
  EXPECT_THAT(Error("echo 'unterminated"), HasSubstr("unterminated single quote"));
  EXPECT_THAT(Error("echo \"unterminated"), HasSubstr("unterminated double quote"));
  EXPECT_THAT(Error("echo $(ls"), HasSubstr("unterminated command substitution"));
  EXPECT_THAT(Error("echo `ls"), HasSubstr("unterminated backquote"));
  EXPECT_THAT(Error("(a; b"), HasSubstr("unterminated subshell"));
  EXPECT_THAT(Error("a; b)"), HasSubstr("unbalanced \")\" at offset 4"));
  EXPECT_THAT(Error("{ a; b"), HasSubstr("unterminated group"));
  EXPECT_THAT(Error("a; }"), HasSubstr("unbalanced \"}\""));
  EXPECT_THAT(Error("echo ${x"), HasSubstr("unterminated parameter expansion"));
  EXPECT_THAT(Error("f() { rm -rf x; }"), HasSubstr("unexpected \"(\""));
  EXPECT_THAT(Error("echo $'abc"), HasSubstr("unterminated quote"));
}

TEST(CommandSplitterTest, HereDocumentsAreRefused) {
  EXPECT_THAT(Error("cat <<EOF\nrm -rf x\nEOF"), HasSubstr("here-documents"));
  EXPECT_THAT(Error("cat <<-'EOF' > f\nhello\nEOF"), HasSubstr("here-documents"));
  EXPECT_THAT(Error("echo $(cat <<EOF\nx\nEOF\n)"), HasSubstr("here-documents"));
}

TEST(CommandSplitterTest, DeepNestingFailsInsteadOfOverflowing) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "$(";
  EXPECT_THAT(Error(deep), HasSubstr("levels deep"));
  std::string parens(10000, '(');
  EXPECT_THAT(Error(parens), HasSubstr("levels deep"));
  std::string quotes;
  for (int i = 0; i < 10000; ++i) quotes += "\"${x:-";
  EXPECT_THAT(Error(quotes), HasSubstr("levels deep"));
}

TEST(CommandSplitterTest, TrailingBackslashIsKept) {
  EXPECT_THAT(Split("echo a\\"), ElementsAre("echo a\\"));
}

}  // namespace
}  // namespace raw::tools::policy
