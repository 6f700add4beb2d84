// What the command analysis cannot be sure of stays unknown: a redirection
// whose operator only looks like duplication after quote removal, a target
// a loop reaches after a cd, a target an earlier command may have sent
// elsewhere through a link, and a shell's -c whose string comes from
// another command. Each is checked in the analysis and by the rules.
#include <filesystem>
#include <string>
#include <vector>

#include "common/json.h"
#include "daemon/tools/policy/command_subjects.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tools::testing::Command;
using tools::testing::kBash;
using tools::testing::Redirect;
using tools::testing::Rules;
using tools::testing::TempDir;

CommandSubject FailClosedTarget(std::string target, bool known) {
  return {CommandSubject::Kind::kRedirect, std::move(target), known};
}

CommandSubjects FailClosedAnalyze(const std::string& command) {
  auto subjects = AnalyzeShellCommand(command);
  EXPECT_TRUE(subjects.ok()) << command << ": " << subjects.status();
  return subjects.ok() ? *std::move(subjects) : CommandSubjects{};
}

// The redirect subjects of `command`.
std::vector<CommandSubject> FailClosedTargets(const std::string& command) {
  std::vector<CommandSubject> targets;
  for (const CommandSubject& s : FailClosedAnalyze(command).subjects) {
    if (s.kind == CommandSubject::Kind::kRedirect) targets.push_back(s);
  }
  return targets;
}

Decision FailClosedRun(const RuleSet& rules, const std::string& command, const std::string& cwd) {
  return rules.Evaluate(kBash, Json{{"command", command}}, cwd, ApprovalMode::kAskAll);
}

// Case: the operator is read from the text as written; a quoted "&" after
// ">" is part of a file name, never duplication.
TEST(CommandSubjectsFailClosedTest, AQuotedAmpersandAfterTheOperatorIsAFileName) {
  for (const char* command : {"echo payload >'&'1", "echo payload >\\&1", "echo payload > '&1'",
                              "echo payload >\"&1\"", "echo payload > \\&1"}) {
    EXPECT_THAT(FailClosedTargets(command), ::testing::ElementsAre(FailClosedTarget("&1", true)))
        << command;
  }
  EXPECT_THAT(FailClosedTargets("echo x > '>a.log'"),
              ::testing::ElementsAre(FailClosedTarget(">a.log", true)));
  EXPECT_THAT(FailClosedTargets("echo x 2>'&'2"),
              ::testing::ElementsAre(FailClosedTarget("&2", true)));
  // Unquoted, >&1 and 2>&1 duplicate; ">&" with a quoted number still does
  // (bash expands the word, then sees a number), with a name writes it.
  for (const char* command :
       {"echo x >&1", "echo x 2>&1", "echo x >& 2", "echo x >&'1'", "echo x 1>&-"}) {
    EXPECT_THAT(FailClosedTargets(command), IsEmpty()) << command;
  }
  EXPECT_THAT(FailClosedTargets("echo x >&'out'"),
              ::testing::ElementsAre(FailClosedTarget("out", true)));
}

TEST(CommandSubjectsFailClosedTest, AQuotedAmpersandTargetIsCheckedByTheRules) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::filesystem::create_directories(dir.Join("proj"));
  tools::testing::WriteText(dir.Join("target"), "");
  std::filesystem::create_symlink("../target", dir.Join("proj/&1"));
  RuleSet rules = Rules({Command(RuleAction::kAllow, "echo *")});
  for (const char* command :
       {"echo 'payload' >'&'1", "echo payload >\\&1", "echo payload > '&1'"}) {
    Decision decision = FailClosedRun(rules, command, dir.Join("proj"));
    EXPECT_EQ(decision.action, RuleAction::kAsk) << command;
    EXPECT_THAT(decision.reason, HasSubstr("redirect to " + dir.Join("target"))) << command;
  }
  EXPECT_EQ(FailClosedRun(rules, "echo x > '>a.log'", dir.Join("proj")).action, RuleAction::kAsk);
  EXPECT_EQ(FailClosedRun(rules, "echo x 2>&1", dir.Join("proj")).action, RuleAction::kAllow);
}

// Case: a loop runs a redirection again after a cd written later.
TEST(CommandSubjectsFailClosedTest, ALoopMakesARelativeTargetUnknownAfterACdAnywhere) {
  for (const char* command :
       {"while ls x; do echo payload >> f; cd ..; done",
        "until false; do echo x > f; pushd ..; done", "for i in 1 2; do echo x > f; cd ..; done",
        "for i in 1 2; { echo x > f; cd ..; }", "select i in a; do echo x > f; popd; done",
        "bash -c 'while :; do echo x > f; cd ..; done'", "trap 'echo x > f' EXIT; cd .."}) {
    EXPECT_THAT(FailClosedTargets(command), Contains(FailClosedTarget("f", false))) << command;
  }
  EXPECT_THAT(FailClosedTargets("while ls .bashrc; do echo payload >> .bashrc; cd ..; done"),
              ::testing::ElementsAre(FailClosedTarget(".bashrc", false)));
  // Without a loop, text order tells; absolute targets stay known.
  EXPECT_THAT(FailClosedTargets("echo x > f; cd /"),
              ::testing::ElementsAre(FailClosedTarget("f", true)));
  EXPECT_THAT(FailClosedTargets("while :; do echo x > /tmp/f; cd ..; done"),
              ::testing::ElementsAre(FailClosedTarget("/tmp/f", true)));
  EXPECT_THAT(FailClosedTargets("for i in a b; do echo $i > f; done"),
              ::testing::ElementsAre(FailClosedTarget("f", true)));
}

TEST(CommandSubjectsFailClosedTest, ALoopWithACdAsks) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::filesystem::create_directories(dir.Join("proj"));
  RuleSet rules = Rules({Command(RuleAction::kAllow, "echo *"), Command(RuleAction::kAllow, "ls *"),
                         Command(RuleAction::kAllow, "cd *"), Redirect(RuleAction::kAllow, "**")});
  EXPECT_EQ(FailClosedRun(rules, "while ls .bashrc; do echo payload >> .bashrc; cd ..; done",
                          dir.Join("proj"))
                .action,
            RuleAction::kAsk);
  EXPECT_EQ(FailClosedRun(rules, "echo payload >> .bashrc; cd ..", dir.Join("proj")).action,
            RuleAction::kAllow);
}

// Case: an earlier command may make a link the redirection then follows.
TEST(CommandSubjectsFailClosedTest, ACommandThatMayChangeFilesMakesOtherTargetsUnknown) {
  EXPECT_THAT(FailClosedTargets("git checkout -q evil && echo payload >> logs/.bashrc"),
              ::testing::ElementsAre(FailClosedTarget("logs/.bashrc", false)));
  for (const char* command :
       {"ln -s .. logs; echo x > logs/f", "git checkout x | echo x > logs/f",
        "echo x > logs/f & mkdir logs", "{ sleep 1; echo x > logs/f; } | tar xf a.tar",
        "echo x > logs/f | git checkout x", "cat <(git checkout x) > logs/f",
        "find . -exec sh -c 'git checkout x > logs/f' ';'",
        "xargs -n1 sh -c 'echo x > logs/f; git checkout \"$0\"'",
        "nice git checkout x; echo x > logs/f", "bash -c 'git checkout x'; echo x > logs/f",
        "xargs ln -s; echo x > logs/f"}) {
    EXPECT_THAT(FailClosedTargets(command), Contains(FailClosedTarget("logs/f", false))) << command;
  }
  // Absolute and home targets too.
  EXPECT_THAT(FailClosedTargets("git checkout x; echo x > /tmp/logs/f"),
              ::testing::ElementsAre(FailClosedTarget("/tmp/logs/f", false)));
  EXPECT_THAT(FailClosedTargets("git checkout x; echo x > ~/logs/f"),
              ::testing::ElementsAre(FailClosedTarget("~/logs/f", false)));
  // A command's own redirection is opened before it runs; a loop runs it
  // again after.
  EXPECT_THAT(FailClosedTargets("make > build.log 2>&1"),
              ::testing::ElementsAre(FailClosedTarget("build.log", true)));
  EXPECT_THAT(FailClosedTargets("while :; do make > build.log; done"),
              ::testing::ElementsAre(FailClosedTarget("build.log", false)));
  // In text order, a target before the command stays known.
  EXPECT_THAT(FailClosedTargets("echo x > logs/f && git checkout x"),
              ::testing::ElementsAre(FailClosedTarget("logs/f", true)));
  // Commands that leave files alone, and /dev/null, stay known.
  EXPECT_THAT(FailClosedTargets("echo a > x && echo b >> x"),
              ::testing::ElementsAre(FailClosedTarget("x", true), FailClosedTarget("x", true)));
  EXPECT_THAT(
      FailClosedTargets("ls; cat a | grep b > out; cd /; echo x > /tmp/f"),
      ::testing::ElementsAre(FailClosedTarget("out", true), FailClosedTarget("/tmp/f", true)));
  EXPECT_THAT(FailClosedTargets("git checkout x; echo x > /dev/null"),
              ::testing::ElementsAre(FailClosedTarget("/dev/null", true)));
}

TEST(CommandSubjectsFailClosedTest, ATargetAfterACommandThatMayMakeALinkAsks) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::filesystem::create_directories(dir.Join("proj/logs"));
  RuleSet rules =
      Rules({Command(RuleAction::kAllow, "git checkout *"), Command(RuleAction::kAllow, "echo *"),
             Redirect(RuleAction::kAllow, "logs/**")});
  const std::string proj = dir.Join("proj");
  EXPECT_EQ(
      FailClosedRun(rules, "git checkout -q evil && echo payload >> logs/.bashrc", proj).action,
      RuleAction::kAsk);
  EXPECT_EQ(FailClosedRun(rules, "echo a > logs/x && echo b >> logs/x", proj).action,
            RuleAction::kAllow);
  EXPECT_EQ(FailClosedRun(rules, "echo a > logs/x", proj).action, RuleAction::kAllow);
  EXPECT_EQ(FailClosedRun(rules, "git checkout -q main > logs/out", proj).action,
            RuleAction::kAllow);
}

// Case: a shell's -c without its string takes it from what a wrapper
// appends.
TEST(CommandSubjectsFailClosedTest, AShellsDashCWithoutItsStringIsOpaque) {
  for (const char* command : {"echo 'touch /tmp/x' | xargs -d '\\n' bash -c", "xargs sh -c",
                              "xargs bash -ec", "xargs bash -c --", "bash -c", "sudo sh -c"}) {
    EXPECT_THAT(FailClosedAnalyze(command).opaque_reason, HasSubstr("-c\" runs")) << command;
  }
  // With its string, the arguments appended are only its positional ones.
  EXPECT_THAT(FailClosedAnalyze("xargs bash -c 'echo \"$@\"' _").opaque_reason, IsEmpty());
}

// What find and xargs -I put in place of "{}" (or -I's string) is only
// known when they run: a command string or command name made of it is.
TEST(CommandSubjectsFailClosedTest, WordsFindAndXargsReplaceAreOnlyKnownWhenTheyRun) {
  for (const char* command :
       {"find . -exec bash -c {} +", "find . -exec sh -c {} \\;", "find . -exec {} \\;",
        "xargs -I{} bash -c {}", "xargs -I % sh -c 'echo %'", "xargs -i bash -c {}",
        "xargs -ix sh -c x", "xargs --replace bash -c {}", "xargs --replace=R bash -c R",
        "find . -exec sudo {} \\;"}) {
    EXPECT_THAT(FailClosedAnalyze(command).opaque_reason, HasSubstr("only known")) << command;
  }
  // As arguments they are what rules see as written.
  EXPECT_THAT(FailClosedAnalyze("find . -exec rm {} +").opaque_reason, IsEmpty());
  EXPECT_THAT(FailClosedAnalyze("xargs -I {} rm {}").opaque_reason, IsEmpty());
  EXPECT_THAT(FailClosedAnalyze("xargs -I {} bash -c 'rm \"$0\"' {}").opaque_reason, IsEmpty());
  RuleSet rules = Rules({Command(RuleAction::kAllow, "find *"), Command(RuleAction::kAllow, "*")});
  EXPECT_EQ(FailClosedRun(rules, "find . -name 'touch*' -exec bash -c {} +", "/").action,
            RuleAction::kAsk);
}

TEST(CommandSubjectsFailClosedTest, AShellsDashCFromXargsAsks) {
  RuleSet rules =
      Rules({Command(RuleAction::kAllow, "echo *"), Command(RuleAction::kAllow, "xargs *"),
             Command(RuleAction::kAllow, "bash -c *")});
  EXPECT_EQ(FailClosedRun(rules, "echo 'touch /tmp/x' | xargs -d '\\n' bash -c", "/").action,
            RuleAction::kAsk);
  EXPECT_EQ(FailClosedRun(rules, "echo a | xargs echo", "/").action, RuleAction::kAllow);
}

}  // namespace
}  // namespace raw::tools::policy
