// Session rules: what "allow for this session" adds for a call (exactly
// what was approved), and the wider program patterns it offers only where
// the program cannot run another command.
#include <string>
#include <vector>

#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/rule_test_support.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using config::RuleConfig;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using tools::testing::Bash;
using tools::testing::Command;
using tools::testing::kBash;
using tools::testing::kMcp;
using tools::testing::kWrite;
using tools::testing::Path;
using tools::testing::Redirect;
using tools::testing::Rules;
using tools::testing::TempDir;
using tools::testing::Whole;

TEST(RuleSetTest, SessionRuleOptionsOfferTheProgramPatternWhereSafe) {
  auto options = [](const std::string& command) {
    return RuleSet::SessionRuleOptions(kBash, Json{{"command", command}}, "/");
  };
  // (The redirection comes first: after a command that may make links,
  // such as git, a target is only known when the line runs.)
  auto o = options("echo hi > /tmp/o.txt && git status -s");
  ASSERT_EQ(o.size(), 2u);
  EXPECT_THAT(o[0], ::testing::ElementsAre(Command(RuleAction::kAllow, "echo hi > /tmp/o.txt"),
                                           Redirect(RuleAction::kAllow, "/tmp/o.txt"),
                                           Command(RuleAction::kAllow, "git status -s")));
  EXPECT_THAT(o[1], ::testing::ElementsAre(Command(RuleAction::kAllow, "echo *"),
                                           Redirect(RuleAction::kAllow, "/tmp/o.txt"),
                                           Command(RuleAction::kAllow, "git status *")));
  EXPECT_EQ(DescribeRule(o[1][2]), "allow builtin/bash command \"git status *\"");
  EXPECT_THAT(options("git status -s && echo hi > /tmp/o.txt"), IsEmpty());
  // A command the pattern does not match itself keeps its exact rule.
  EXPECT_THAT(options("ls")[1], ::testing::ElementsAre(Command(RuleAction::kAllow, "ls"),
                                                       Command(RuleAction::kAllow, "ls *")));
  // Never wider than the program and its subcommand; never for shells,
  // interpreters, prefixes, command runners, hidden evaluation, assignments.
  for (const char* command : {"git",
                              "git -c core.pager=x log",
                              "bash -c 'rm x'",
                              "python3 -c 'print(1)'",
                              "node -e 1",
                              "perl -e 1",
                              "sed -n 1p f",
                              "awk 1 f",
                              "env FOO=1 make",
                              "FOO=1 make",
                              "sudo make",
                              "xargs rm",
                              "find . -name x",
                              "eval ls",
                              "source x",
                              "printf x",
                              "read -r x",
                              "./build.sh",
                              "/usr/bin/ls",
                              "'ls' x",
                              "npx cowsay",
                              "ssh host ls",
                              "LD_PRELOAD=x ls",
                              "\"$x\" y"}) {
    EXPECT_LE(options(command).size(), 1u) << command;
  }
  // What xargs runs stays exact: its arguments are not what the user saw.
  EXPECT_THAT(options("echo f | xargs rm")[1],
              ::testing::ElementsAre(Command(RuleAction::kAllow, "echo *"),
                                     Command(RuleAction::kAllow, "xargs rm"),
                                     Command(RuleAction::kAllow, "rm \u2026")));
  EXPECT_THAT(options("npm ls --all")[1],
              ::testing::ElementsAre(Command(RuleAction::kAllow, "npm ls *")));
  EXPECT_THAT(options("mkdir -p out")[1],
              ::testing::ElementsAre(Command(RuleAction::kAllow, "mkdir *")));
  // The widened rules allow the next such command, and no more.
  RuleSet rules;
  ASSERT_TRUE(rules.AddSessionRules(options("git status -s")[1]).ok());
  EXPECT_EQ(Bash(rules, "git status --short").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git push").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "git status; rm x").action, RuleAction::kAsk);
}

// Only programs and subcommands on a fixed list of ones that cannot run
// another command are widened: a runner subcommand or an option that runs
// a command would turn one approved test run into a shell.
TEST(RuleSetTest, SessionRuleOptionsNeverWidenWhatCanRunCommands) {
  for (const char* command : {"uv run pytest -q",
                              "poetry run pytest",
                              "bundle exec rake",
                              "pnpm exec tsc",
                              "pnpm dlx cowsay",
                              "yarn exec tsc",
                              "yarn dlx cowsay",
                              "npx tsc",
                              "npm run build",
                              "npm test",
                              "npm exec tsc",
                              "npm x tsc",
                              "npm install",
                              "conda run -n x ls",
                              "nix run nixpkgs#hello",
                              "docker run alpine",
                              "docker exec c ls",
                              "kubectl exec p ls",
                              "kubectl get pods",
                              "cargo test",
                              "go test ./...",
                              "git grep foo",
                              "git fetch origin",
                              "git pull",
                              "git push",
                              "git rebase main",
                              "git difftool HEAD",
                              "git submodule update",
                              "git bisect start",
                              "git config user.name",
                              "git clone x",
                              "git log -1",
                              "git diff HEAD",
                              "git show HEAD",
                              "git blame f",
                              "git stash list",
                              "git merge x",
                              "tar xf a.tar",
                              "rsync -a a b",
                              "rg foo",
                              "fd foo",
                              "sort f",
                              "make -j2",
                              "ninja",
                              "cp a b",
                              "ln -s a b",
                              "rm -rf build",
                              "less f",
                              "man ls",
                              "tree",
                              "uniq a",
                              "curl https://example.com",
                              "wget https://example.com",
                              "pytest -q",
                              "cmake --build b",
                              "some-unknown-tool x"}) {
    std::vector<std::vector<config::RuleConfig>> options =
        RuleSet::SessionRuleOptions(kBash, Json{{"command", command}}, "/");
    EXPECT_EQ(options.size(), 1u) << command;
  }
  // What the rules of a widened pattern allow stays within the program.
  auto widened = RuleSet::SessionRuleOptions(kBash, Json{{"command", "git status -s"}}, "/");
  ASSERT_EQ(widened.size(), 2u);
  RuleSet rules;
  ASSERT_TRUE(rules.AddSessionRules(widened[1]).ok());
  EXPECT_EQ(Bash(rules, "git status --porcelain").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git grep -O'sh -c x' y").action, RuleAction::kAsk);
}

TEST(RuleSetTest, SessionRulesAllowExactlyWhatWasApproved) {
  RuleSet rules = Rules({Command(RuleAction::kDeny, "rm *")});
  Json call{{"command", "git status && make -j2 | tee 'log *' && make -j2"}};
  std::vector<RuleConfig> session = RuleSet::SessionRulesFor(kBash, call, "/");
  ASSERT_EQ(session.size(), 3u);
  EXPECT_EQ(session[0], Command(RuleAction::kAllow, "git status"));
  EXPECT_EQ(session[1], Command(RuleAction::kAllow, "make -j2"));
  EXPECT_EQ(session[2], Command(RuleAction::kAllow, "tee 'log \\*'"));
  EXPECT_EQ(rules.Evaluate(kBash, call, "/", ApprovalMode::kDefault).action, RuleAction::kAsk);
  ASSERT_TRUE(rules.AddSessionRules(session).ok());
  Decision again = rules.Evaluate(kBash, call, "/", ApprovalMode::kDefault);
  EXPECT_EQ(again.action, RuleAction::kAllow);
  EXPECT_THAT(again.reason, HasSubstr("session rule (allow builtin/bash command \"git status\")"));
  EXPECT_EQ(Bash(rules, "tee 'log x'").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "make -j3").action, RuleAction::kAsk);
  // The agent's rules come first.
  ASSERT_TRUE(
      rules.AddSessionRules(RuleSet::SessionRulesFor(kBash, Json{{"command", "rm x"}}, "/")).ok());
  EXPECT_EQ(Bash(rules, "rm x").action, RuleAction::kDeny);
}

TEST(RuleSetTest, SessionRulesForPathsAndOtherTools) {
  TempDir dir;
  std::vector<RuleConfig> path_rules =
      RuleSet::SessionRulesFor(kWrite, Json{{"path", "a/../b*.txt"}}, dir.path());
  ASSERT_EQ(path_rules.size(), 1u);
  EXPECT_EQ(path_rules[0],
            Path(RuleAction::kAllow, dir.path() + "/b\\*.txt", "builtin/write_file"));
  RuleSet rules;
  ASSERT_TRUE(rules.AddSessionRules(path_rules).ok());
  EXPECT_EQ(
      rules.Evaluate(kWrite, Json{{"path", "b*.txt"}}, dir.path(), ApprovalMode::kDefault).action,
      RuleAction::kAllow);
  EXPECT_EQ(
      rules.Evaluate(kWrite, Json{{"path", "bx.txt"}}, dir.path(), ApprovalMode::kDefault).action,
      RuleAction::kAsk);

  EXPECT_THAT(RuleSet::SessionRulesFor(kMcp, Json::object(), "/"),
              ::testing::ElementsAre(Whole(RuleAction::kAllow, "mcp/files/delete")));
  EXPECT_THAT(RuleSet::SessionRulesFor(kBash, Json{{"command", "echo 'oops"}}, "/"), IsEmpty());
  // Wrapped commands are allowed too; canonical forms need no rule; an
  // opaque line cannot be allowed exactly.
  EXPECT_THAT(RuleSet::SessionRulesFor(kBash, Json{{"command", "\\rm f | xargs rm"}}, "/"),
              ::testing::ElementsAre(Command(RuleAction::kAllow, "\\\\rm f"),
                                     Command(RuleAction::kAllow, "xargs rm"),
                                     Command(RuleAction::kAllow, "rm \u2026")));
  EXPECT_THAT(RuleSet::SessionRulesFor(kBash, Json{{"command", "echo $((x))"}}, "/"), IsEmpty());
  EXPECT_THAT(RuleSet::SessionRulesFor(kBash, Json::object(), "/"), IsEmpty());
  // A required path that is missing: nothing to allow.
  ToolSpec write_required = kWrite;
  write_required.input_schema = OrderedJson{{"required", {"path"}}};
  EXPECT_THAT(RuleSet::SessionRulesFor(write_required, Json::object(), "/"), IsEmpty());
  // An optional path that is missing means the working directory (glob,
  // grep and list_dir search there).
  EXPECT_THAT(RuleSet::SessionRulesFor(kWrite, Json::object(), dir.path()),
              ::testing::ElementsAre(Path(RuleAction::kAllow, ResolveRulePath(dir.path(), "."),
                                          "builtin/write_file")));
}

}  // namespace
}  // namespace raw::tools::policy
