// The scanner never reads a line as harmless where bash reads it otherwise:
// an escaped '>' or '<' is no operator for a following '&' or '|' to join,
// a line continuation joins what surrounds it before bash reads operators,
// single quotes inside "${…}" quote a '"', and "&>" takes no descriptor
// ("2&>f" is the word "2" and the redirection "&>f"). Each line is either
// read as bash reads it or not judged, and a rule that allows only its
// first command does not allow it.
#include <string>
#include <vector>

#include "daemon/tools/policy/command_splitter.h"
#include "daemon/tools/policy/command_subjects.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> FailClosedSplit(const std::string& command) {
  auto parts = SplitShellCommand(command);
  EXPECT_TRUE(parts.ok()) << command << ": " << parts.status();
  return parts.ok() ? *parts : std::vector<std::string>{"<error>"};
}

// Allowed without asking under a rule allowing only `pattern`.
bool FailClosedAllowed(const std::string& pattern, const std::string& command) {
  RuleSet rules = tools::testing::Rules({tools::testing::Command(RuleAction::kAllow, pattern)});
  return tools::testing::Bash(rules, command, ApprovalMode::kAskAll).action == RuleAction::kAllow;
}

TEST(ShellScannerFailClosedTest, AnEscapedRedirectionCharacterDoesNotJoinASeparator) {
  EXPECT_THAT(FailClosedSplit("git status \\>& touch /tmp/x"),
              ElementsAre("git status \\>", "touch /tmp/x"));
  EXPECT_THAT(FailClosedSplit("git status \\>| touch /tmp/x"),
              ElementsAre("git status \\>", "touch /tmp/x"));
  EXPECT_THAT(FailClosedSplit("echo hi \\<& touch /tmp/x"),
              ElementsAre("echo hi \\<", "touch /tmp/x"));
  EXPECT_THAT(FailClosedSplit("echo '>'& touch /tmp/x"), ElementsAre("echo '>'", "touch /tmp/x"));
  // The operators themselves still join.
  EXPECT_THAT(FailClosedSplit("make >& log 2>&1 >| out <&0 {fd}>&- && ls"),
              ElementsAre("make >& log 2>&1 >| out <&0 {fd}>&-", "ls"));
  // A redirection with its target written does not grow: "2>&1>f" writes f.
  EXPECT_THAT(FailClosedSplit("echo x 2>&1>f"), ElementsAre("echo x 2>&1 >f"));
}

TEST(ShellScannerFailClosedTest, AnEscapedRedirectionCharacterHidesNoCommandFromARule) {
  EXPECT_TRUE(FailClosedAllowed("git status *", "git status \\>"));
  EXPECT_FALSE(FailClosedAllowed("git status *", "git status \\>& touch /tmp/x"));
  EXPECT_FALSE(FailClosedAllowed("git status *", "git status \\>| touch /tmp/x"));
  EXPECT_FALSE(FailClosedAllowed("echo *", "echo hi \\<& touch /tmp/x"));
}

TEST(ShellScannerFailClosedTest, ALineContinuationJoinsAnOperatorAsBashJoinsIt) {
  // "<\⏎<" is the here-document "<<", refused like any.
  const std::string heredoc = "git status <\\\n<X\ngit status '$\\\n(touch /tmp/x)\nX\n'";
  auto parts = SplitShellCommand(heredoc);
  ASSERT_FALSE(parts.ok()) << parts->size() << " parts";
  EXPECT_THAT(parts.status().message(), HasSubstr("here-documents"));
  // "$\⏎(" is a command substitution: seen, or the line is refused.
  EXPECT_THAT(FailClosedSplit("echo \"$\\\n(rm x)\""), ElementsAre("rm x", "echo \"$(rm x)\""));
  EXPECT_FALSE(SplitShellCommand("echo $\\\n(rm x)").ok());
  // "2\⏎>" redirects descriptor 2, ">\⏎>" appends.
  EXPECT_THAT(FailClosedSplit("echo a 2\\\n>f >\\\n>g"), ElementsAre("echo a 2>f >>g"));
  // Between operators and words, as before.
  EXPECT_THAT(FailClosedSplit("a &\\\n& b >\\\n| c"), ElementsAre("a", "b >| c"));
  EXPECT_THAT(FailClosedSplit("make \\\n  -j2 && ls"), ElementsAre("make -j2", "ls"));
  // In single quotes and comments bash keeps them.
  EXPECT_THAT(FailClosedSplit("echo 'a\\\n<b' # c\\\nls"), ElementsAre("echo 'a\\\n<b'", "ls"));
  // "${x\⏎@P}" is prompt expansion.
  auto prompt = AnalyzeShellCommand("echo ${x\\\n@P}");
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_NE(prompt->opaque_reason, "");
  // "$\⏎'" opens $'…', which keeps the next continuation: read again, the
  // line no longer agrees on where they are, and is refused.
  auto moved = SplitShellCommand("echo $\\\n'\\'\\\n #'");
  ASSERT_FALSE(moved.ok()) << moved->size() << " parts";
  EXPECT_THAT(moved.status().message(), HasSubstr("line continuations"));
  EXPECT_THAT(FailClosedSplit("echo $\\\n'a\\\nb'"), ElementsAre("echo $'a\\\nb'"));
  // In backquotes bash removes them even inside quotes.
  EXPECT_THAT(FailClosedSplit("echo `echo 'a\\\nb'`"),
              ElementsAre("echo 'ab'", "echo `echo 'ab'`"));
}

TEST(ShellScannerFailClosedTest, ALineContinuationHidesNoCommandFromARule) {
  EXPECT_FALSE(FailClosedAllowed("git status *",
                                 "git status <\\\n<X\ngit status '$\\\n(touch /tmp/x)\nX\n'"));
  EXPECT_FALSE(FailClosedAllowed("echo *", "echo $\\\n(touch /tmp/x)"));
  EXPECT_FALSE(FailClosedAllowed("echo *", "echo a 2\\\n>~/.bashrc"));
  EXPECT_TRUE(FailClosedAllowed("make *", "make \\\n  -j2"));
}

TEST(ShellScannerFailClosedTest, SingleQuotesInsideAQuotedParameterQuoteADoubleQuote) {
  for (const char* op : {"#", "##", "%", "%%", "/", "//", "^", ",", ":-", "-", ":=", ":+", "+"}) {
    const std::string line = std::string("git status \"${x") + op + "'\"'}\"\ntouch /tmp/x\n#}\"";
    EXPECT_THAT(FailClosedSplit(line), Contains("touch /tmp/x")) << line;
  }
  EXPECT_THAT(FailClosedSplit("git status \"${x#$'\"'}\"\ntouch /tmp/x\n#}\""),
              Contains("touch /tmp/x"));
  EXPECT_THAT(FailClosedSplit("echo \"${x#$'\\'\"'}\"\ntouch /tmp/x\n#}\""),
              Contains("touch /tmp/x"));
  // What the quotes hold is still expanded: "${x:-'$(cmd)'}" runs cmd.
  EXPECT_THAT(FailClosedSplit("echo \"${x:-'$(rm y)'}\""),
              ElementsAre("rm y", "echo \"${x:-'$(rm y)'}\""));
  // An expansion that would run past the closing quote is not judged.
  EXPECT_FALSE(SplitShellCommand("echo \"${x:-'$(echo ')'}\"").ok());
}

TEST(ShellScannerFailClosedTest, SingleQuotesInsideAQuotedParameterHideNoCommandFromARule) {
  EXPECT_FALSE(FailClosedAllowed("git status *", "git status \"${x#'\"'}\"\ntouch /tmp/x\n#}\""));
  EXPECT_FALSE(FailClosedAllowed("git status *", "git status \"${x:-$'\"'}\"\ntouch /tmp/x\n#}\""));
}

TEST(ShellScannerFailClosedTest, AnAmpersandRedirectionTakesNoDescriptor) {
  EXPECT_THAT(FailClosedSplit("echo 'payload' 2&>>~/.bashrc"),
              ElementsAre("echo 'payload' 2 &>>~/.bashrc"));
  EXPECT_THAT(FailClosedSplit("echo x {fd}&>f"), ElementsAre("echo x {fd} &>f"));
  auto subjects = AnalyzeShellCommand("echo 'payload' 2&>>~/.bashrc");
  ASSERT_TRUE(subjects.ok()) << subjects.status();
  EXPECT_THAT(subjects->subjects,
              Contains(CommandSubject{CommandSubject::Kind::kRedirect, "~/.bashrc", true}));
}

TEST(ShellScannerFailClosedTest, AnAmpersandRedirectionAfterADigitIsSeenByARule) {
  EXPECT_TRUE(FailClosedAllowed("echo *", "echo 'payload' 2"));
  EXPECT_FALSE(FailClosedAllowed("echo *", "echo 'payload' 2&>>~/.bashrc"));
  EXPECT_FALSE(FailClosedAllowed("echo *", "echo 'payload' {v}&>~/.bashrc"));
}

}  // namespace
}  // namespace raw::tools::policy
