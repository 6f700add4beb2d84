// The shell analyzer against bash itself: for command lines the analyzer
// reads statically (not opaque), every external command bash actually tries
// to run must be one the analyzer named, and every variable that changes
// what runs (environment_names.h) bash passes in its environment must be one
// the analyzer listed. A command bash would run must never be judged as
// something else (docs/reliability.md, "Fuzzing").
//
// Bash runs each line in a sandbox of its own making: no command can be
// found (PATH names an empty directory), so each external command it tries
// goes to command_not_found_handle, which prints the name and the names of
// its environment with a marker and runs nothing; restricted mode (set -r) refuses names with a
// slash, output redirection, `command -p`, `exec` and re-enabling builtins; `kill` is disabled
// before that; the working directory is an empty temporary one, stdin is empty and each run has a
// timeout.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/cancel_token.h"
#include "common/subprocess.h"
#include "daemon/tools/policy/command_subjects.h"
#include "daemon/tools/policy/environment_names.h"
#include "gtest/gtest.h"

namespace raw::tools::policy {
namespace {

// Around each name the handler prints; a name may reach the output inside
// other text (a command substitution's output that echo prints).
constexpr char kMarker[] = "\x1e" "raw-ran:";
constexpr char kEnvMarker[] =
    "\x1e"
    "raw-env:";
constexpr char kEnd = '\x1e';

// Lines that exercise what decides which commands run: operators, nesting,
// substitutions, quoting of names, builtins that run commands (eval,
// command, builtin, trap), compound commands and comments.
const char* const kLines[] = {
    "git status && rm -rf x",
    "(cd a; make) | tee log",
    "a; b || c && d | e |& f & g",
    "{ a; b; } > /dev/null",
    "echo $(rm x) `mv y z` <(cat w)",
    "echo \"in $(quoted) text\"",
    "\\rm x",
    "'r'm x",
    "\"r\"m x",
    "$'\\x72m' x",
    // Bash ends a $'…' value at the first NUL an escape makes.
    "r$'\\x00'm x",
    "$'rm\\0' x",
    "$'r\\c@'m x",
    "m$'v\\000zz' a b",
    "$'r\\u0000q'm x",
    "$'r\\U00000000q'm x",
    "to$'\\x0zz'uch x",
    "ev$'\\x00'al 'rm x'",
    "t$'\\c?'ouch x",
    "r$'\\c\\\\'m x",
    "r\\\nm x",
    "FOO=1 rm x 2>/dev/null",
    "eval 'rm x'",
    "eval \"rm y; touch z\"",
    "eval eval mv a b",
    "command rm x",
    "builtin eval rm x",
    "command eval 'mv a b'",
    "trap 'rm -rf tmp' EXIT; true",
    "if a; then b; elif c; then d; else e; fi",
    "while false; do w; done; until true; do u; done",
    "for i in 1 2; do loop; done",
    "! neg x",
    "time timed x",
    "[[ -n $x ]] && after",
    "test -f x && t2",
    "echo a # rm -rf /",
    "x=1; y=2 z",
    "nice -n 5 rm x",
    "env A=1 rm x",
    "timeout 5 rm x",
    "xargs rm < /dev/null",
    "a | b | c",
    "echo $((1 + 2)) && arith",
    "true && { inner1; inner2; }",
    "(( 1 )) && dbl",
    "coproc co x",
    "echo ${x:-$(subst)}",
    "cat <<< \"$(herestring)\"",
    "exec rm x",
    "declare -f f >/dev/null; g",
    // A disabled builtin's name runs the program of that name; hashing
    // names as PATH finds them changes nothing.
    "enable -n echo; echo x; enable -n test; test -f x && t3",
    "hash -r; hash h0; h1",
    // Variables set by name reach the environment under set -a.
    "GIT_DIR=x e1; LD_AUDIT=y; export LD_AUDIT; e2",
    "set -a; printf -v GIT_CONFIG_COUNT 1; e3",
    "set -o allexport; read -r GIT_CONFIG_KEY_0 GIT_DIR <<< 'a b'; e4",
    "set -a; getopts a: GIT_WORK_TREE -ax; e5",
    "set -a; for LD_AUDIT in x; do e6; done",
    "set -a; exec {GIT_FD}</dev/null; e7",
    "set -a; e0 & wait -n -p GIT_PID; e8",
    // An escaped '>' or '<' is a word: the '&' or '|' after it separates.
    "git status \\>& touch x",
    "git status \\>| touch x",
    "echo hi \\<& touch x",
    // Bash removes line continuations before it reads operators.
    // "<\⏎<" is a here-document whose body runs touch; echo prints its
    // name.
    "read -r v <\\\n<X\nv '$\\\n(touch x)\nX\necho \"$v\" #'",
    "c1 &\\\n& c2 >\\\n| c3",
    "echo \"$\\\n(c4)\" `c5 'a\\\nb'`",
    // Single quotes inside "${…}" quote a '"'; what they hold is expanded.
    "git status \"${x#'\"'}\"\ntouch x\n#}\"",
    "git status \"${x:-$'\"'}\"\ntouch x\n#}\"",
    "echo \"${x:-'$(c6)'}\"",
    // "&>" takes no descriptor: "2&>f" is the word 2 and "&>f".
    "c7 x 2&>/dev/null && c8 {v}&>/dev/null",
};

struct BashRun {
  std::vector<std::string> ran;  // the external commands bash tried, in order
  // The variables in their environments, except the sandbox's own PATH and HOME.
  std::set<std::string> environment;
  std::string log;  // what else it printed
};

// The texts between `marker` and kEnd in `out`.
std::vector<std::string> Marked(const std::string& out, std::string_view marker) {
  std::vector<std::string> found;
  for (size_t at = out.find(marker); at != std::string::npos; at = out.find(marker, at)) {
    at += marker.size();
    const size_t end = out.find(kEnd, at);
    if (end == std::string::npos) break;
    found.push_back(out.substr(at, end - at));
    at = end + 1;
  }
  return found;
}

class ShellBashDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "bash is not installed";
    char tmpl[] = "/tmp/rawshdiff.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directory(dir_ + "/empty");
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  BashRun Run(const std::string& line) {
    const std::string end(1, kEnd);
    const std::string script = absl::StrCat(
        "command_not_found_handle() { printf '", kMarker, "%s", end, "\\n' \"$1\";\n",
        // An array, not a variable set -a would export.
        "  local -a raw_names; mapfile -t raw_names <<< \"$(compgen -e)\"\n",
        "  for n in \"${raw_names[@]}\"; do\n",
        "    [[ $n == PATH || ( $n == HOME && $HOME == \"$RAW_HOME\" ) ]] && continue\n",
        "    printf '", kEnvMarker, "%s", end, "\\n' \"$n\"\n", "  done\n", "  return 0; }\n",
        "enable -n kill\n", "set -r\n", "eval \"$RAW_LINE\"\n");
    SubprocessOptions options;
    options.argv = {"/bin/bash", "--norc", "--noprofile", "-c", script};
    options.cwd = dir_;
    options.env = {
        {"PATH", dir_ + "/empty"}, {"RAW_LINE", line}, {"HOME", dir_}, {"RAW_HOME", dir_}};
    // Nothing of this process's own environment reaches the sandbox.
    for (char** entry = environ; *entry != nullptr; ++entry) {
      std::string_view name(*entry);
      options.withheld_env.emplace(name.substr(0, name.find('=')));
    }
    options.timeout_ms = 5000;
    CancelToken cancel;
    absl::StatusOr<SubprocessResult> result = RunSubprocess(options, cancel);
    BashRun run;
    if (!result.ok()) {
      ADD_FAILURE() << result.status();
      return run;
    }
    EXPECT_FALSE(result->timed_out) << line;
    run.ran = Marked(result->stdout_data, kMarker);
    for (std::string& name : Marked(result->stdout_data, kEnvMarker)) {
      run.environment.insert(std::move(name));
    }
    run.log = result->stdout_data + result->stderr_data;
    return run;
  }

  // The command names the analyzer found: the first word of every command
  // and canonical subject.
  static std::set<std::string> Names(const CommandSubjects& subjects) {
    std::set<std::string> names;
    for (const CommandSubject& s : subjects.subjects) {
      if (s.kind == CommandSubject::Kind::kRedirect) continue;
      names.insert(s.text.substr(0, s.text.find(' ')));
    }
    return names;
  }

  // Checks `line`; true when the analyzer read it statically (so the
  // comparison was made).
  bool Check(const std::string& line) {
    absl::StatusOr<CommandSubjects> subjects = AnalyzeShellCommand(line);
    if (!subjects.ok() || !subjects->opaque_reason.empty()) return false;
    const std::set<std::string> names = Names(*subjects);
    BashRun run = Run(line);
    std::string found;
    for (const std::string& n : names) absl::StrAppend(&found, " [", n, "]");
    for (const std::string& ran : run.ran) {
      EXPECT_TRUE(names.count(ran) != 0)
          << "bash ran `" << ran << "` for the line\n  " << line
          << "\nbut the analyzer named only" << found << "\nbash printed:\n" << run.log;
    }
    const std::set<std::string> listed(subjects->environment.begin(), subjects->environment.end());
    for (const std::string& name : run.environment) {
      EXPECT_TRUE(!ChangesWhatRuns(name) || listed.count(name) != 0)
          << "bash passed " << name << " to a command for the line\n  " << line
          << "\nbut the analyzer did not list it\nbash printed:\n"
          << run.log;
    }
    return true;
  }

  std::string dir_;
};

TEST_F(ShellBashDifferentialTest, EveryCommandBashRunsIsOneTheAnalyzerNamed) {
  int compared = 0;
  for (const char* line : kLines) compared += Check(line) ? 1 : 0;
  // Most of the lines are read statically; the comparison must not be empty.
  EXPECT_GE(compared, 30);
}

TEST_F(ShellBashDifferentialTest, TheSandboxSeesWhatBashRuns) {
  // The harness itself: names reach the log, in order, and nothing runs.
  BashRun run = Run("first a; second b && third c");
  EXPECT_EQ(run.ran, (std::vector<std::string>{"first", "second", "third"})) << run.log;
  run = Run("eval 'inner x'; \\rm y");
  EXPECT_EQ(run.ran, (std::vector<std::string>{"inner", "rm"})) << run.log;
  // The environment of each command is seen, except the sandbox's own.
  run = Run("GIT_DIR=x first; LD_AUDIT=y second");
  EXPECT_EQ(run.environment,
            (std::set<std::string>{"GIT_DIR", "LD_AUDIT", "RAW_HOME", "RAW_LINE", "PWD", "SHLVL"}))
      << run.log;
  // Restricted mode refuses a name with a slash rather than running it.
  run = Run("/bin/touch made; touch2");
  EXPECT_EQ(run.ran, (std::vector<std::string>{"touch2"})) << run.log;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/made"));
}

TEST_F(ShellBashDifferentialTest, TheFuzzCorpusAgrees) {
  const std::string corpus = absl::StrCat(RAW_SOURCE_DIR, "/tests/fuzz/corpus/shell");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (absl::string_view line : absl::StrSplit(text.str(), '\n', absl::SkipWhitespace())) {
      Check(std::string(line));
    }
    ++files;
  }
  EXPECT_GT(files, 0);
}

}  // namespace
}  // namespace raw::tools::policy
