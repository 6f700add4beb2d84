#include "daemon/tools/policy/command_subjects.h"

#include <string>
#include <utility>
#include <vector>

#include "daemon/tools/policy/shell_words.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools::policy {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

CommandSubject C(std::string text) { return {CommandSubject::Kind::kCommand, std::move(text)}; }
CommandSubject K(std::string text) { return {CommandSubject::Kind::kCanonical, std::move(text)}; }
CommandSubject R(std::string target, bool known = true) {
  return {CommandSubject::Kind::kRedirect, std::move(target), known};
}

CommandSubjects Analyze(const std::string& command) {
  auto subjects = AnalyzeShellCommand(command);
  EXPECT_TRUE(subjects.ok()) << command << ": " << subjects.status();
  return subjects.ok() ? *std::move(subjects) : CommandSubjects{};
}

std::vector<CommandSubject> Subjects(const std::string& command) {
  CommandSubjects subjects = Analyze(command);
  EXPECT_EQ(subjects.opaque_reason, "") << command;
  return subjects.subjects;
}

TEST(CommandSubjectsTest, EachSimpleCommandIsASubjectAsWritten) {
  EXPECT_THAT(Subjects("git status && make -j2 | tee log"),
              ElementsAre(C("git status"), C("make -j2"), C("tee log")));
  EXPECT_THAT(Subjects("echo $(ls -l)"), ElementsAre(C("ls -l"), C("echo $(ls -l)")));
  EXPECT_THAT(Subjects("   # only a comment"), IsEmpty());
}

TEST(CommandSubjectsTest, TheCanonicalFormIsTheCommandAsBashRunsIt) {
  EXPECT_THAT(Subjects("FOO=1 BAR=\"x y\" rm f"),
              ElementsAre(C("FOO=1 BAR=\"x y\" rm f"), K("rm f")));
  EXPECT_THAT(Subjects("\\rm f"), ElementsAre(C("\\rm f"), K("rm f")));
  EXPECT_THAT(Subjects("'rm' \"-rf\" x"), ElementsAre(C("'rm' \"-rf\" x"), K("rm -rf x")));
  EXPECT_THAT(Subjects("r''m f"), ElementsAre(C("r''m f"), K("rm f")));
  EXPECT_THAT(Subjects("$'\\x72m' f"), ElementsAre(C("$'\\x72m' f"), K("rm f")));
  EXPECT_THAT(Subjects("/usr/bin/rm f"), ElementsAre(C("/usr/bin/rm f"), K("rm f")));
  EXPECT_THAT(Subjects("2>/dev/null rm f > out"),
              ElementsAre(C("2>/dev/null rm f > out"), K("rm f"), R("/dev/null"), R("out")));
  EXPECT_THAT(Subjects("rm>/dev/null f"),
              ElementsAre(C("rm >/dev/null f"), K("rm f"), R("/dev/null")));
  EXPECT_THAT(Subjects("git commit -m \"$MSG\""),
              ElementsAre(C("git commit -m \"$MSG\""), K("git commit -m $MSG")));
  // A command that is already canonical is one subject; assignments and
  // redirections alone stay a command of their own.
  EXPECT_THAT(Subjects("make -j2"), ElementsAre(C("make -j2")));
  EXPECT_THAT(Subjects("FOO=1"), ElementsAre(C("FOO=1")));
  EXPECT_THAT(Subjects("FOO=1 > f"), ElementsAre(C("FOO=1 > f"), R("f")));
  // A quoted name is not an assignment: bash runs a command named "FOO=1".
  EXPECT_THAT(Subjects("'FOO=1' x"), ElementsAre(C("'FOO=1' x"), K("FOO=1 x")));
}

TEST(CommandSubjectsTest, TransparentPrefixesAreUnwrapped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"command rm f", "rm f"},
      {"command -p rm f", "rm f"},
      {"builtin rm f", "rm f"},
      {"exec -a name rm f", "rm f"},
      {"env -i -u HOME A=1 rm f", "A=1 rm f"},
      {"env --chdir=/ -- rm f", "rm f"},
      {"env - rm f", "rm f"},
      {"nohup rm f", "rm f"},
      {"nice -n 5 rm f", "rm f"},
      {"nice -5 rm f", "rm f"},
      {"nice --adjustment 5 rm f", "rm f"},
      {"time -p rm f", "rm f"},
      {"timeout 5 rm f", "rm f"},
      {"timeout -k 1 --signal=KILL 5 rm f", "rm f"},
      {"xargs -0 -n 1 -I {} rm {}", "rm {}"},
      {"xargs -r -L1 rm", "rm \u2026"},
      {"sudo -u root FOO=1 rm f", "FOO=1 rm f"},
      {"sudo --preserve-env -- rm f", "rm f"},
      {"stdbuf -oL -e 0 rm f", "rm f"},
      {"setsid -f rm f", "rm f"},
      {"doas -u root rm f", "rm f"},
      {"coproc rm f", "rm f"},
      {"busybox rm f", "rm f"},
      {"/usr/bin/env rm f", "rm f"},
  };
  for (const auto& [command, wrapped] : cases) {
    std::vector<CommandSubject> subjects = Subjects(command);
    EXPECT_THAT(subjects, Contains(C(command))) << command;
    EXPECT_THAT(subjects, Contains(C(wrapped))) << command;
  }
  // Prefixes nest; the wrapped command has its canonical form too.
  EXPECT_THAT(Subjects("nice nohup \\rm f"),
              ElementsAre(C("nice nohup \\rm f"), K("nice nohup rm f"), C("nohup \\rm f"),
                          K("nohup rm f"), C("\\rm f"), K("rm f")));
  // xargs appends what it reads; with no command it runs echo.
  EXPECT_THAT(Subjects("echo f | xargs rm"),
              ElementsAre(C("echo f"), C("xargs rm"), C("rm \u2026")));
  EXPECT_THAT(Subjects("xargs"), ElementsAre(C("xargs"), C("echo \u2026")));
  // These run no other command.
  for (const char* command : {"command -v rm", "env", "env A=1", "nice", "time", "sudo -l rm",
                              "doas -C /etc/doas.conf rm", "exec > log 2>&1", "bash script.sh"}) {
    EXPECT_THAT(Subjects(command), Not(Contains(C("rm")))) << command;
    EXPECT_EQ(Subjects(command)[0], C(command));
  }
}

// "env A=1 cmd" runs cmd with A set, exactly as "A=1 cmd": the assignments
// stay part of the command rules see, and its canonical form drops them.
TEST(CommandSubjectsTest, AssignmentsAfterAPrefixStayPartOfTheCommand) {
  EXPECT_THAT(
      Subjects("env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git status"),
      ElementsAre(
          C("env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git status"),
          C("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git status"),
          K("git status")));
  EXPECT_THAT(Subjects("sudo LD_PRELOAD=/tmp/x.so ls"),
              ElementsAre(C("sudo LD_PRELOAD=/tmp/x.so ls"), C("LD_PRELOAD=/tmp/x.so ls"),
                          K("ls")));
  EXPECT_THAT(Subjects("nice env PATH=/tmp/bin make"),
              ::testing::IsSupersetOf({C("env PATH=/tmp/bin make"), C("PATH=/tmp/bin make")}));
  EXPECT_THAT(Subjects("env A=1"), ElementsAre(C("env A=1")));
}

// env and sudo see quotes only after the shell removed them: 'A=1' and
// "LD_PRELOAD=x" are assignments to them, and the command is what follows.
TEST(CommandSubjectsTest, QuotedAssignmentsAfterAPrefixAreAssignments) {
  EXPECT_THAT(Subjects("env 'A=1' rm -rf x"),
              ElementsAre(C("env 'A=1' rm -rf x"), K("env A=1 rm -rf x"), C("A='1' rm -rf x"),
                          K("rm -rf x")));
  EXPECT_THAT(Subjects("sudo A'=1' \"B=it's\" rm x"), Contains(K("rm x")));
  EXPECT_THAT(Subjects("env 'A=1' bash -c 'rm x'"), Contains(C("rm x")));
  EXPECT_EQ(Analyze("env 'LD_PRELOAD=/tmp/x.so' ls").environment,
            std::vector<std::string>{"LD_PRELOAD"});
  EXPECT_EQ(Analyze("env \"GIT_SSH_COMMAND=sh -c x\" git fetch").environment,
            std::vector<std::string>{"GIT_SSH_COMMAND"});
  // A name a shell cannot set is still set by env: what runs is not read.
  EXPECT_THAT(Analyze("env 'A-B=1' rm x").opaque_reason, HasSubstr("\"A-B=1\""));
  // A word that only looks like an assignment once expanded is not one.
  EXPECT_THAT(Analyze("env \"$X=1\" rm x").opaque_reason, Not(IsEmpty()));
}

TEST(CommandSubjectsTest, VariablesThatChangeWhatRunsAreListed) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"LD_PRELOAD=/tmp/x.so ls", {"LD_PRELOAD"}},
      {"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git status",
       {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"}},
      {"sudo -E LD_LIBRARY_PATH=. make", {"LD_LIBRARY_PATH"}},
      {"timeout 5 env BASH_ENV=x bash s.sh", {"BASH_ENV"}},
      {"PATH=/tmp:$PATH make; ENV=x sh s", {"PATH", "ENV"}},
      {"export PROMPT_COMMAND='rm x'; KUBECONFIG=k kubectl get", {"PROMPT_COMMAND", "KUBECONFIG"}},
      {"NPM_CONFIG_USERCONFIG=x npm i", {"NPM_CONFIG_USERCONFIG"}},
      {"declare -x NODE_OPTIONS=--require=x", {"NODE_OPTIONS"}},
      {"HOME=/tmp/h git log", {"HOME"}},
  };
  for (const auto& [command, names] : cases) {
    EXPECT_EQ(Analyze(command).environment, names) << command;
  }
  for (const char* command : {"FOO=1 make", "env CC=clang make", "export A=1", "LANG=C sort"}) {
    EXPECT_THAT(Analyze(command).environment, IsEmpty()) << command;
  }
}

// Builtins that assign a variable by name set it as surely as NAME=value:
// into the environment under `set -a`, or when it is exported already
// (PATH, HOME).
TEST(CommandSubjectsTest, VariablesAssignedByNameAreListed) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"set -a; printf -v GIT_CONFIG_COUNT 1; git status", {"GIT_CONFIG_COUNT"}},
      {"read -r GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 <<< '1 core.fsmonitor'",
       {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0"}},
      {"read -ra LD_PRELOAD < f", {"LD_PRELOAD"}},
      {"printf -vPATH %s /tmp", {"PATH"}},
      {"getopts a: GIT_DIR -a1", {"GIT_DIR"}},
      {"mapfile -t LD_AUDIT < f; readarray GIT_X < f", {"LD_AUDIT", "GIT_X"}},
      {"wait -p GIT_PID -n", {"GIT_PID"}},
      {"for PATH in /tmp; do ls; done", {"PATH"}},
      {"select HOME in /tmp; do break; done", {"HOME"}},
      {"builtin read -r EDITOR", {"EDITOR"}},
      {"exec {GIT_CONFIG_COUNT}>/dev/null", {"GIT_CONFIG_COUNT"}},
  };
  for (const auto& [command, names] : cases) {
    EXPECT_EQ(Analyze(command).environment, names) << command;
  }
  for (const char* command : {"read -r line < f", "printf -v out %s x", "for f in *.cc; do :; done",
                              "getopts ab opt", "mapfile -t lines < f", "exec {fd}>/dev/null"}) {
    EXPECT_THAT(Analyze(command).environment, IsEmpty()) << command;
  }
  // An expansion that assigns such a variable hides it from this list.
  EXPECT_THAT(Analyze("set -a; : ${GIT_CONFIG_COUNT:=1}").opaque_reason, Not(IsEmpty()));
  EXPECT_THAT(Analyze("echo \"${LD_PRELOAD=x.so}\"").opaque_reason, Not(IsEmpty()));
  EXPECT_THAT(Analyze("echo ${out:=x} ${LD_PRELOAD:-x}").opaque_reason, IsEmpty());
}

// In keyword mode every NAME=value word of a command, not only the leading
// ones, goes into its environment: the line is not read.
TEST(CommandSubjectsTest, KeywordModeMakesTheLineOpaque) {
  for (const char* command :
       {"set -k; git status GIT_CONFIG_COUNT=1", "set -ek; x", "set -o keyword; x",
        "set -eo keyword; x", "set -ok keyword; x", "set -oo errexit keyword", "set -o \"$m\"; x",
        "set $flags; x", "shopt -os keyword; x", "shopt -o -s \"$o\"", "builtin set -k",
        "bash -k -c 'x'", "bash -o keyword -c 'x'", "sh -ek -c 'x'", "bash -o \"$o\" -c 'x'",
        "bash -c 'set -k; git status GIT_DIR=x'", "eval 'set -k'"}) {
    EXPECT_THAT(Analyze(command).opaque_reason, HasSubstr("keyword")) << command;
  }
  for (const char* command : {"set -e; x", "set -euo pipefail; x", "set +k; x", "set -- -k",
                              "set a -k", "shopt -s extglob", "bash -e -c 'x'", "set -x"}) {
    EXPECT_THAT(Analyze(command).opaque_reason, IsEmpty()) << command;
  }
}

TEST(CommandSubjectsTest, FilesWrittenByRedirectionsAreSubjects) {
  EXPECT_THAT(Subjects("echo x >> ~/.bashrc"),
              ElementsAre(C("echo x >> ~/.bashrc"), K("echo x"), R("~/.bashrc")));
  EXPECT_THAT(Subjects("make >build.log 2>&1"),
              ElementsAre(C("make >build.log 2>&1"), K("make"), R("build.log")));
  EXPECT_THAT(Subjects("a &>'o u t' 2>>e 3<>rw >|f {fd}>g >&h"),
              ::testing::IsSupersetOf({R("o u t"), R("e"), R("rw"), R("f"), R("g"), R("h")}));
  // Reading, here-strings and descriptor duplication write no file.
  for (const char* command : {"sort < in", "cat <<< w", "x 2>&1 >&2 3>&- 1>&3-", "x <&3"}) {
    for (const CommandSubject& s : Subjects(command)) {
      EXPECT_NE(s.kind, CommandSubject::Kind::kRedirect) << command << ": " << s.text;
    }
  }
  // A target only running tells is unknown; a quoted "~" is a name.
  EXPECT_THAT(Subjects("echo x > \"$f\""), Contains(R("$f", false)));
  EXPECT_THAT(Subjects("echo x > *.txt"), Contains(R("*.txt", false)));
  EXPECT_THAT(Subjects("echo x > ~root/f"), Contains(R("~root/f", false)));
  EXPECT_THAT(Subjects("echo x > '~/f'"), Contains(R("./~/f")));
  // Redirections after a group, inside command strings and substitutions.
  EXPECT_THAT(Subjects("{ echo a; ls; } > f"), Contains(R("f")));
  // Read as "a; b; > f" (opened after a and b ran), which may have made a
  // link the target goes through (command_subjects_fail_closed_test.cc).
  EXPECT_THAT(Subjects("{ a; b; } > f"), Contains(R("f", false)));
  EXPECT_THAT(Subjects("bash -c 'echo x > f'"), Contains(R("f")));
  EXPECT_THAT(Subjects("echo $(cat x > f)"), Contains(R("f")));
}

TEST(CommandSubjectsTest, ARelativeTargetAfterAChangeOfDirectoryIsUnknown) {
  // Each of these may move the shell elsewhere before the redirection opens
  // its file, so "f" is not <cwd>/f.
  for (const char* command :
       {"cd ~ && echo x >> f", "cd ~; echo x > f", "pushd /tmp; echo x > f", "popd; echo x > f",
        "source env.sh; echo x > f", ". env.sh; echo x > f", "(cd ~; echo x > f)",
        "shopt -s autocd; echo x > f", "builtin cd /; echo x > f", "bash -c 'cd ~; echo x > f'",
        "env -C /tmp sh -c 'echo x > f'", "env --chdir=/tmp sh -c 'echo x > f'",
        "sudo -D /root sh -c 'echo x > f'", "find . -execdir sh -c 'echo x > f' ';'"}) {
    EXPECT_THAT(Subjects(command), Contains(R("f", false))) << command;
  }
  // A command name only running tells may be cd too.
  EXPECT_THAT(Analyze("$go /; echo x > f").subjects, Contains(R("f", false)));
  // An absolute or home target is known wherever the shell is; a
  // redirection of the cd itself, or before it, opens its file first.
  EXPECT_THAT(Subjects("cd ~; echo x > /tmp/f"), Contains(R("/tmp/f")));
  EXPECT_THAT(Subjects("cd /; echo x > ~/f"), Contains(R("~/f")));
  EXPECT_THAT(Subjects("echo x > f; cd /"), Contains(R("f")));
  EXPECT_THAT(Subjects("cd / 2> f"), Contains(R("f")));
  EXPECT_THAT(Subjects("find . -exec sh -c 'echo x > f' ';'"), Contains(R("f")));
  EXPECT_THAT(Subjects("shopt -s extglob; echo x > f"), Contains(R("f")));
}

TEST(CommandSubjectsTest, CommandStringsAreParsedInTurn) {
  EXPECT_THAT(Subjects("bash -c \"rm f\""),
              ElementsAre(C("bash -c \"rm f\""), K("bash -c rm f"), C("rm f")));
  EXPECT_THAT(Subjects("sh -ec 'a; b' name arg"), ::testing::IsSupersetOf({C("a"), C("b")}));
  EXPECT_THAT(Subjects("/bin/bash -o pipefail --norc -lc 'ls | rm f'"),
              ::testing::IsSupersetOf({C("ls"), C("rm f")}));
  EXPECT_THAT(Subjects("bash -c \"sh -c 'rm f'\""), Contains(C("rm f")));
  EXPECT_THAT(Subjects("eval 'rm f' '&& ls'"), ::testing::IsSupersetOf({C("rm f"), C("ls")}));
  EXPECT_THAT(Subjects("trap 'rm f' EXIT"), Contains(C("rm f")));
  EXPECT_THAT(Subjects("env -S 'rm -f' x"), Contains(C("rm -f x")));
  for (const char* command : {"dash -c 'rm f'", "zsh -c 'rm f'", "ksh -c 'rm f'"}) {
    EXPECT_THAT(Subjects(command), Contains(C("rm f"))) << command;
  }
  EXPECT_THAT(Subjects("trap - EXIT"), ElementsAre(C("trap - EXIT")));
  EXPECT_THAT(Subjects("trap -p"), ElementsAre(C("trap -p")));
}

TEST(CommandSubjectsTest, FindActionsRunTheirCommands) {
  EXPECT_THAT(Subjects("find . -name '*.o' -exec rm {} \\;"),
              ElementsAre(C("find . -name '*.o' -exec rm {} \\;"),
                          K("find . -name *.o -exec rm {} ;"), C("rm {}")));
  EXPECT_THAT(Subjects("find . -execdir rm -f {} + -ok shred {} ';' -print"),
              ::testing::IsSupersetOf({C("rm -f {}"), C("shred {}")}));
  // "+" ends an action only right after "{}".
  EXPECT_THAT(Subjects("find . -exec echo + {} +"), Contains(C("echo + {}")));
  // Unterminated: find refuses it, the rules read it to the end.
  EXPECT_THAT(Subjects("find . -okdir rm x"), Contains(C("rm x")));
  // The command of an action is unwrapped like any other.
  EXPECT_THAT(Subjects("find . -exec sudo rm {} \\;"), Contains(C("rm {}")));
  EXPECT_THAT(Subjects("find . -name x -delete"), ElementsAre(C("find . -name x -delete")));
  for (const char* command : {"find \"$dir\" -name x", "x=-exec; find . $x rm {} \\;",
                              "find . -exec echo \"$s\" -exec rm {} \\;"}) {
    EXPECT_THAT(Analyze(command).opaque_reason,
                ::testing::StartsWith("cannot tell what \"find\" runs"))
        << command;
  }
}

TEST(CommandSubjectsTest, WhatCannotBeKnownMakesTheLineOpaque) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"$cmd x", "the command name $cmd is only known when the line runs"},
      {"\"$HOME/bin/x\"", "the command name \"$HOME/bin/x\" is only known when the line runs"},
      {"bash -c \"rm $f\"", "the command line \"bash -c\" runs is only known when it runs"},
      {"eval \"$x\"", "the command line \"eval\" runs is only known when it runs"},
      {"echo rm x | bash", "\"bash\" reads the commands it runs from its input"},
      {"sh -s < f", "\"sh\" reads the commands it runs from its input"},
      {"bash <(curl x)",
       "cannot tell what \"bash\" runs (\"<(curl x)\" is only known when the line "
       "runs)"},
      {"sudo -s", "\"sudo\" starts a shell that reads the commands it runs from its input"},
      {"sudo --frobnicate rm",
       "cannot tell which command \"sudo\" runs (option \"--frobnicate\" "
       "is not understood)"},
      {"nice -q rm", "cannot tell which command \"nice\" runs (option \"-q\" is not understood)"},
      {"timeout $t rm",
       "cannot tell which command \"timeout\" runs (\"$t\" is only known when the "
       "line runs)"},
      {"bash -c 'rm \"x'",
       "the command line bash runs cannot be split (unterminated double quote "
       "(opened at offset 3))"},
      {"fish -c 'rm x'", "cannot tell what \"fish\" runs (its command language is not read)"},
      {"source <(curl x)", "\"source\" reads the commands it runs from its input"},
      {". /dev/stdin", "\".\" reads the commands it runs from its input"},
      {"bash /dev/stdin", "\"bash\" reads the commands it runs from its input"},
  };
  for (const auto& [command, reason] : cases) {
    EXPECT_EQ(Analyze(command).opaque_reason, reason) << command;
  }
  // Deny rules still see what can be seen.
  EXPECT_THAT(Analyze("bash -c \"rm $f\"").subjects, Contains(C("rm $f")));
  // Programs that run commands this analysis does not read.
  for (const char* command :
       {"flock /tmp/l rm x", "ionice -c3 rm x", "chroot /srv ls", "su -c 'rm x'", "su",
        "script -qc 'rm x' /dev/null", "watch rm x", "ssh host rm x", "parallel rm ::: a b",
        "strace -f rm x", "unshare -r rm x", "systemd-run rm x", "nice flock l rm x"}) {
    std::string program = std::string(command).starts_with("nice ") ? "flock"
                          : std::string(command).substr(0, std::string(command).find(' '));
    EXPECT_EQ(Analyze(command).opaque_reason,
              "cannot tell what \"" + program + "\" runs (the commands it runs are not read)")
        << command;
  }
  EXPECT_EQ(Analyze("zsh -c 'rm x'").opaque_reason, "");  // a bash-like command string
  EXPECT_EQ(Analyze("source .venv/bin/activate").opaque_reason, "");
}

TEST(CommandSubjectsTest, HiddenEvaluationMakesTheLineOpaque) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"echo $(( ${y:-'a[$(touch p)]'} ))", kHiddenInQuotes},
      {"echo $((x))", kHiddenInArithmetic},
      {"a[i]=1", kHiddenInArithmetic},
      {"let x=1", kHiddenInArithmetic},
      {"[[ $n -gt 1 ]]", kHiddenInArithmetic},
      {"[[ x -eq 1 ]]", kHiddenInArithmetic},
      {"PS4=$x bash -x s", kHiddenInPrompt},
      {"declare -i n=1", kHiddenInName},
      {"local -n r=x", kHiddenInName},
      {"export \"$v\"=1", kHiddenInName},
      {"read -r \"$v\"", kHiddenInName},
      {"read -a \"$v\"", kHiddenInName},
      {"printf -v \"$v\" x", kHiddenInName},
      {"printf -v'a[0]' x", kHiddenInName},
      {"unset \"$v\"", kHiddenInName},
      {"mapfile -t \"$v\" < f", kHiddenInName},
      {"mapfile -C cb -c 1 arr < f", "\"mapfile -C\" runs text as a command"},
      {"getopts ab \"$v\"", kHiddenInName},
      {"wait -p \"$v\"", kHiddenInName},
      {"test -v \"$v\"", kHiddenInName},
      {"[ -v \"$v\" ]", kHiddenInName},
      {"[[ -v $v ]]", kHiddenInName},
      {"sudo read \"$v\"", kHiddenInName},
      {"bash -c '[[ x -eq 1 ]]'", kHiddenInArithmetic},
  };
  for (const auto& [command, reason] : cases) {
    EXPECT_EQ(Analyze(command).opaque_reason, reason) << command;
  }
  for (const char* command :
       {"read -r line", "read -p 'name: ' -a arr", "printf -v out '%s' x", "export A=1 B=\"$HOME\"",
        "declare -a arr", "unset -v x", "test -v x", "[ -v x ]", "[[ $# -gt 0 && 1 -le 2 ]]",
        "mapfile -t lines < f", "getopts ab opt", "[ \"$n\" -gt 1 ]", "a[0]=1"}) {
    EXPECT_EQ(Analyze(command).opaque_reason, "") << command;
  }
}

// `hash -p` and BASH_CMDS point a command name at another program, `enable
// -f` loads a builtin from a file and a function definition gives a name a
// body of its own: a later command's name no longer says what it runs.
TEST(CommandSubjectsTest, CommandNamesMadeToRunSomethingElseMakeTheLineOpaque) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"hash -p /bin/bash ls; ls -c 'rm x'",
       "\"hash -p\" makes a command name run the program at "
       "another path"},
      {"hash -rp/bin/bash ls", "\"hash -p\" makes a command name run the program at another path"},
      {"builtin hash -p /bin/sh ls",
       "\"hash -p\" makes a command name run the program at "
       "another path"},
      {"hash $opts ls", "\"hash -p\" makes a command name run the program at another path"},
      {"bash -c 'hash -p /bin/sh ls; ls'",
       "\"hash -p\" makes a command name run the program at "
       "another path"},
      {"enable -f ./x.so ls; ls", "\"enable -f\" loads a builtin from a file"},
      {"command enable -nf x.so cat", "\"enable -f\" loads a builtin from a file"},
      {"enable \"$o\" x", "\"enable -f\" loads a builtin from a file"},
      {"BASH_CMDS[ls]=/bin/bash; ls -c 'rm x'",
       "the command line sets BASH_CMDS, which makes a "
       "command name run the program at another path"},
      {"BASH_CMDS[0]=/bin/sh",
       "the command line sets BASH_CMDS, which makes a command name run "
       "the program at another path"},
      {"printf -v BASH_CMDS /bin/sh",
       "the command line sets BASH_CMDS, which makes a command "
       "name run the program at another path"},
      {"function ls\n{ rm -rf x; }\nls",
       "the command line defines a function, which changes "
       "what a command name runs"},
      {"eval $'function ls\\n{ x; }'",
       "the command line defines a function, which changes what "
       "a command name runs"},
      {"shopt -s expand_aliases\nalias ls=rm\nls -rf x",
       "the command line defines an alias, which changes what a command name runs"},
      {"set -o posix; builtin alias 'ls=rm'; ls x",
       "the command line defines an alias, which changes what a command name runs"},
      {"alias \"$a\"", "the command line defines an alias, which changes what a command name runs"},
  };
  for (const auto& [command, reason] : cases) {
    EXPECT_EQ(Analyze(command).opaque_reason, reason) << command;
  }
  // Deny rules still see the commands.
  EXPECT_THAT(Analyze("hash -p /bin/bash ls; ls -c 'rm x'").subjects, Contains(K("ls -c rm x")));
  // Hashing a name as PATH finds it, forgetting, disabling a builtin (the
  // name then runs the program of that name) and listing are read as usual.
  for (const char* command : {"hash ls", "hash -r", "hash -d ls", "hash -lt ls", "enable",
                              "enable -n echo; echo x", "enable -ps", "'function' x",
                              "echo function", "alias", "alias ll", "alias -p", "echo alias x=y"}) {
    EXPECT_EQ(Analyze(command).opaque_reason, "") << command;
  }
  // A function definition written on one line cannot be split at all.
  for (const char* command : {"ls() { rm -rf x; }; ls", "function ls { rm x; }; ls",
                              "command_not_found_handle() { rm x; }; y"}) {
    EXPECT_FALSE(AnalyzeShellCommand(command).ok()) << command;
  }
}

TEST(CommandSubjectsTest, NestingIsBounded) {
  std::string prefixes;
  for (int i = 0; i < 100; ++i) prefixes += "nice ";
  auto deep = AnalyzeShellCommand(prefixes + "rm x");
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(std::string(deep.status().message()), HasSubstr("levels deep"));
  std::string evals;
  for (int i = 0; i < 100; ++i) evals += "eval ";
  CommandSubjects strings = Analyze(evals + "rm x");
  EXPECT_THAT(strings.opaque_reason, HasSubstr("levels deep"));
  // A line that cannot be split fails as the splitter does.
  EXPECT_FALSE(AnalyzeShellCommand("echo 'oops").ok());
}

}  // namespace
}  // namespace raw::tools::policy
